/// `CLLocationUpdate.LiveConfiguration` (iOS 17): the kind of activity the app follows, which
/// chooses when the device counts as stationary, as `CLActivityType` does for the delegate API.
/// Every configuration gets GPS-class fixes once a second: Apple documents no other difference.
public enum LiveConfiguration: String, Sendable, CaseIterable, CustomStringConvertible {
    case `default`, automotiveNavigation, otherNavigation, fitness, airborne

    public var description: String { rawValue }

    /// The delegate API's activity type for the same activity.
    public var activityType: ActivityType {
        switch self {
        case .default: .other
        case .automotiveNavigation: .automotiveNavigation
        case .otherNavigation: .otherNavigation
        case .fitness: .fitness
        case .airborne: .airborne
        }
    }
}
