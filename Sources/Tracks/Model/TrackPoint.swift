import Foundation

/// One position of a route: where, optionally at what altitude and when.
///
/// Stored as four doubles (absent altitude and time are NaN inside): 32 bytes, copied as bytes
/// to and from a path's ``SpillColumn``; the public surface is optional.
public struct TrackPoint: Sendable, Equatable, BitwiseCopyable {
    /// Degrees, WGS-84.
    public var latitude: Double
    /// Degrees, WGS-84.
    public var longitude: Double
    @usableFromInline var storedAltitude: Double
    @usableFromInline var storedTime: Double

    public init(latitude: Double, longitude: Double, altitude: Double? = nil, time: Date? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.storedAltitude = altitude ?? .nan
        self.storedTime = time?.timeIntervalSince1970 ?? .nan
    }

    /// Metres; for KML relative to `altitudeMode` of its path, for GPX above mean sea level.
    @inlinable public var altitude: Double? {
        get { storedAltitude.isNaN ? nil : storedAltitude }
        set { storedAltitude = newValue ?? .nan }
    }

    /// Seconds since 1970-01-01T00:00:00Z, if the point is timed.
    @inlinable public var timeIntervalSince1970: Double? {
        get { storedTime.isNaN ? nil : storedTime }
        set { storedTime = newValue ?? .nan }
    }

    /// The point's time, if it is timed.
    public var time: Date? {
        get { timeIntervalSince1970.map(Date.init(timeIntervalSince1970:)) }
        set { timeIntervalSince1970 = newValue?.timeIntervalSince1970 }
    }

    public static func == (lhs: TrackPoint, rhs: TrackPoint) -> Bool {
        lhs.latitude == rhs.latitude && lhs.longitude == rhs.longitude && lhs.altitude == rhs.altitude
            && lhs.timeIntervalSince1970 == rhs.timeIntervalSince1970
    }
}
