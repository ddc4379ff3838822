/// A Double's shortest decimal text — what Swift's `description` prints, the shortest text that
/// reads back as the same Double — appended as UTF-8 without making a `String`: the track
/// writers write two or three a point, the event stream two a fix.
///
/// ```swift
/// var out: [UInt8] = []
/// ShortestDecimal.append(37.331812, to: &out)                       // 37.331812
/// ShortestDecimal.append(156, to: &out)                             // 156.0
/// ShortestDecimal.append(156, wholeNumbersBare: true, to: &out)     // 156
/// ShortestDecimal.append(9.1697e-05, plain: true, to: &out)          // 0.000091697
/// ```
public enum ShortestDecimal {
    /// Appends `value.description`'s text; with `wholeNumbersBare`, whole numbers below 10¹⁵
    /// without `.0` and without the sign of a negative zero (`156`, `0`: the form of togeojson's
    /// and gpsbabel's output). With `plain`, the same digits without an exponent (`1e-05` is
    /// `0.00001`): XML Schema's `decimal`, GPX's latitude, longitude and elevation, has none.
    /// Inlinable: the writers' inner loops call it for every number.
    @inlinable
    public static func append(
        _ value: Double, wholeNumbersBare: Bool = false, plain: Bool = false, to out: inout [UInt8]
    ) {
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
        let text = value.description
        if plain, let exponent = text.utf8.firstIndex(of: UInt8(ascii: "e")) {
            appendPlain(
                mantissa: text.utf8[..<exponent], exponent: text.utf8[text.utf8.index(after: exponent)...], to: &out)
        } else {
            out.append(contentsOf: text.utf8)
        }
    }

    /// `d.ddd` × 10^`exponent` (`description`'s exponent form: one digit before the point) written
    /// out: `-9.1697`, `-05` is `-0.000091697`; `1.5`, `+16` is `15000000000000000`.
    @usableFromInline
    static func appendPlain(mantissa: Substring.UTF8View, exponent: Substring.UTF8View, to out: inout [UInt8]) {
        var mantissa = mantissa
        if mantissa.first == UInt8(ascii: "-") {
            out.append(UInt8(ascii: "-"))
            mantissa.removeFirst()
        }
        let digits = mantissa.filter { $0 != UInt8(ascii: ".") }
        let point = 1 + (Int(String(Substring(exponent))) ?? 0)  // digits before the point
        if point <= 0 {
            out.append(contentsOf: "0.".utf8)
            out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -point))
            out.append(contentsOf: digits)
        } else if point >= digits.count {
            out.append(contentsOf: digits)
            out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: point - digits.count))
        } else {
            out.append(contentsOf: digits[..<point])
            out.append(UInt8(ascii: "."))
            out.append(contentsOf: digits[point...])
        }
    }
}
