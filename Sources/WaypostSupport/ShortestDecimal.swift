/// A Double's shortest decimal text — what Swift's `description` prints, the shortest text that
/// reads back as the same Double — appended as UTF-8 without making a `String`: the track
/// writers write two or three a point, the event stream two a fix.
///
/// ```swift
/// var out: [UInt8] = []
/// ShortestDecimal.append(37.331812, to: &out)                       // 37.331812
/// ShortestDecimal.append(156, to: &out)                             // 156.0
/// ShortestDecimal.append(156, wholeNumbersBare: true, to: &out)     // 156
/// ```
public enum ShortestDecimal {
    /// Appends `value.description`'s text; with `wholeNumbersBare`, whole numbers below 10¹⁵
    /// without `.0` and without the sign of a negative zero (`156`, `0`: the form of togeojson's
    /// and gpsbabel's output). Inlinable: the writers' inner loops call it for every number.
    @inlinable
    public static func append(_ value: Double, wholeNumbersBare: Bool = false, to out: inout [UInt8]) {
        let magnitude = abs(value)
        if value == value.rounded(), magnitude < 1e15 {
            let negative = wholeNumbersBare ? value < 0 : value.sign == .minus
            FixedPoint.append(UInt64(magnitude), places: 0, negative: negative, pointZero: !wholeNumbersBare, to: &out)
            return
        }
        // A value that is a decimal of at most nine places (every coordinate a GPS writes) is
        // written from those digits: with under fifteen significant digits that decimal is the
        // only one so short that reads back as this Double, so it is what `description` prints
        // (which shows 0.0001 and up without an exponent), at a fraction of the cost.
        if magnitude >= 1e-4, magnitude < 1e6 {
            let units = (magnitude * 1e9).rounded()
            if units / 1e9 == magnitude {
                var digits = UInt64(units)
                var places = 9
                while digits % 10 == 0 {
                    digits /= 10
                    places -= 1
                }
                FixedPoint.append(digits, places: places, negative: value < 0, to: &out)
                return
            }
        }
        out.append(contentsOf: value.description.utf8)
    }
}
