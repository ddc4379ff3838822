/// Powers of ten that a Double holds exactly, for the hand-written number and time parsers.
public enum ExactPowers {
    /// 10^e for 0 ≤ e ≤ 22, all exactly representable. A switch, not a global array: reading a
    /// global array retains its buffer, which showed up in profiles at one call per number.
    @inlinable @inline(__always)
    public static func ofTen(_ e: Int) -> Double {
        switch e {
        case 0: 1
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }
}
