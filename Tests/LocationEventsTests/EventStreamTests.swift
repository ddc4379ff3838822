import Foundation
import Geo
import LocationEvents
import SimulatedTime
import Testing
import WaypostSupport

/// 2025-01-01T00:00:00Z, the instant every line below starts with.
private let t0 = EpochInstant(secondsSince1970: 1_735_689_600)

struct EventStreamTests {
    static let region = CircularRegion(
        identifier: "café \"1\"", center: Coordinate(latitude: 1, longitude: 2), radius: 100)
    static let fix = Location(
        coordinate: Coordinate(latitude: 37.331817, longitude: -122.031175), altitude: 69.5, horizontalAccuracy: 5,
        verticalAccuracy: 3, speed: 1.3834, course: 198.687, timestamp: t0)

    @Test(arguments: [
        (
            LocationEvent.authorizationChanged(.authorizedWhenInUse),
            #"{"t":"2025-01-01T00:00:00.000Z","type":"authorization","status":"authorizedWhenInUse"}"#
        ),
        (
            .locationUpdated(fix, service: .standard),
            #"{"t":"2025-01-01T00:00:00.000Z","type":"location","lat":37.331817,"lon":-122.031175,"alt":69.5,"hacc":5.0,"vacc":3.0,"speed":1.383,"course":198.69,"service":"standard"}"#
        ),
        (
            .failed(LocationError(.locationUnknown)),
            #"{"t":"2025-01-01T00:00:00.000Z","type":"error","code":0,"error":"locationUnknown"}"#
        ),
        (
            .enteredRegion(region, at: Coordinate(latitude: 1, longitude: 2)),
            #"{"t":"2025-01-01T00:00:00.000Z","type":"regionEnter","region":"café \"1\"","lat":1.0,"lon":2.0}"#
        ),
        (
            .determinedState(.outside, for: region),
            #"{"t":"2025-01-01T00:00:00.000Z","type":"regionState","region":"café \"1\"","state":"outside"}"#
        ),
        (
            .monitoringFailed(region, LocationError(.regionMonitoringFailure)),
            #"{"t":"2025-01-01T00:00:00.000Z","type":"monitoringFailed","region":"café \"1\"","code":5,"error":"regionMonitoringFailure"}"#
        ),
    ])
    func jsonMatchesTheContract(event: LocationEvent, expected: String) throws {
        let line = EventStreamEncoder.json(TimedEvent(time: t0, event: event))
        #expect(line == expected)
        #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any])
    }

    /// A text line is built on the stack and appended at once; one that outgrows that room (a
    /// long name, a number printf writes in hundreds of digits) is written again with more.
    @Test func textLinesAreWrittenWholeWhateverTheirLength() {
        func text(_ event: LocationEvent, device: String? = nil) -> String {
            EventStreamEncoder.text(TimedEvent(time: t0, device: device, event: event))
        }
        #expect(
            text(.locationUpdated(Self.fix, service: .standard))
                == "2025-01-01T00:00:00.000Z  location        37.331817,-122.031175  ±5 m  alt 69.5 m  1.38 m/s  198.7°"
        )
        let long = String(repeating: "é\u{1B}", count: 300)
        let region = CircularRegion(identifier: long, center: Coordinate(latitude: 1, longitude: 2), radius: 100)
        #expect(
            text(.enteredRegion(region, at: region.center), device: "phone")
                == "2025-01-01T00:00:00.000Z  [phone] enter           " + DisplayEscaping.escape(long))
        let high = Location(
            coordinate: Self.fix.coordinate, altitude: 1e300, horizontalAccuracy: 5, verticalAccuracy: 3, speed: -1,
            course: -1, timestamp: t0)
        #expect(
            text(.locationUpdated(high, service: .standard))
                == "2025-01-01T00:00:00.000Z  location        37.331817,-122.031175  ±5 m  alt "
                + String(format: "%.1f", 1e300) + " m")
    }

    /// A course runs from 0 up to, not including, 360 (CLLocation's `course`): one just west of
    /// north that rounds to 360 is written 0, as the NMEA output of the same fix says it (a
    /// black-box hunt: the stream said 360.0 where NMEA said 0.00).
    @Test func aCourseThatRoundsTo360IsNorth() {
        func fix(_ course: Double) -> LocationEvent {
            .locationUpdated(
                Location(
                    coordinate: Self.fix.coordinate, altitude: 0, horizontalAccuracy: 5, verticalAccuracy: 3,
                    speed: 1, course: course, timestamp: t0), service: .standard)
        }
        #expect(EventStreamEncoder.json(TimedEvent(time: t0, event: fix(359.996))).contains(#""course":0.0,"#))
        #expect(EventStreamEncoder.json(TimedEvent(time: t0, event: fix(359.994))).contains(#""course":359.99,"#))
        #expect(EventStreamEncoder.text(TimedEvent(time: t0, event: fix(359.96))).hasSuffix("  0.0°"))
        #expect(EventStreamEncoder.text(TimedEvent(time: t0, event: fix(359.94))).hasSuffix("  359.9°"))
    }

    @Test func fixedDecimalsReadLikeSwiftDoubles() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let value = Double.random(in: -5000...5000, using: &random)
            for digits in [2, 3] {
                let scale = digits == 2 ? 100.0 : 1000.0
                let rounded = (value * scale).rounded() / scale
                guard rounded != 0 else { continue }
                #expect(EventStreamEncoder.fixed(value, digits) == "\(rounded)", "\(value)")
            }
        }
        #expect(EventStreamEncoder.fixed(5, 2) == "5.0")
        #expect(EventStreamEncoder.fixed(-1, 3) == "-1.0")
        #expect(EventStreamEncoder.fixed(69.5, 3) == "69.5")
    }

    /// Issue 44: a library user matches kinds, not strings, and renders an instant as the stream does.
    @Test func kindsAreTheStreamsTypesAndInstantsRenderAsItsTime() {
        let events: [LocationEvent] = [
            .authorizationChanged(.denied), .enteredRegion(Self.region, at: Self.region.center),
            .exitedRegion(Self.region, at: Self.region.center), .locationUpdated(Self.fix, service: .standard),
        ]
        #expect(events.map(\.kind) == [.authorization, .regionEnter, .regionExit, .location])
        for event in events {
            #expect(event.type == event.kind.rawValue)
            let time = t0.advanced(bySeconds: 0.25)
            let line = EventStreamEncoder.json(TimedEvent(time: time, event: event))
            #expect(line.hasPrefix(#"{"t":""# + time.iso8601 + #"","type":""# + event.kind.rawValue + "\""))
        }
        #expect(t0.advanced(bySeconds: 0.25).iso8601 == "2025-01-01T00:00:00.250Z")
        #expect(Set(LocationEvent.Kind.allCases.map(\.rawValue)).count == LocationEvent.Kind.allCases.count)
    }

    @Test func devicesAreNamedInMultiDeviceRuns() {
        let line = EventStreamEncoder.json(
            TimedEvent(time: t0, device: "phone-2", event: .authorizationChanged(.denied)))
        #expect(line.hasPrefix(#"{"t":"2025-01-01T00:00:00.000Z","device":"phone-2","type":"authorization""#))
    }
}
