import Geo
import LocationEvents
import LocationSimulation
import SimulatedTime
import TestSupport
import Testing

/// Which authorization callback a delegate receives, by iOS release (issue 44).
///
/// Apple, `locationManagerDidChangeAuthorization(_:)` (iOS 14): "Tells the delegate when the app
/// creates the location manager and when the authorization status changes." WWDC20 "What's new
/// in location": the status callback "is deprecated, replaced with"
/// `locationManagerDidChangeAuthorization(_:)`, "invoked when either authorization status or
/// accuracy changes". Apple, `locationManager(_:didChangeAuthorization:)`: "The system calls this
/// method when the app creates the related object's CLLocationManager instance, and when the
/// app's authorization status changes" — the only callback up to iOS 13.
struct AuthorizationCallbackTests {
    /// Records every authorization callback with the status the manager reports during it.
    final class Today: SimulatedLocationManagerDelegate {
        var calls: [String] = []
        func locationManagerDidChangeAuthorization(_ manager: SimulatedLocationManager) {
            calls.append("today \(manager.authorizationStatus) \(manager.accuracyAuthorization)")
        }
    }

    final class Deprecated: SimulatedLocationManagerDelegate {
        var calls: [String] = []
        func locationManager(_ manager: SimulatedLocationManager, didChangeAuthorization status: AuthorizationStatus) {
            calls.append("deprecated \(status)")
        }
    }

    final class Both: SimulatedLocationManagerDelegate {
        var calls: [String] = []
        func locationManagerDidChangeAuthorization(_ manager: SimulatedLocationManager) {
            calls.append("today \(manager.authorizationStatus) \(manager.accuracyAuthorization)")
        }
        func locationManager(_ manager: SimulatedLocationManager, didChangeAuthorization status: AuthorizationStatus) {
            calls.append("deprecated \(status)")
        }
    }

    /// Creation, the prompt's answer, a change in Settings, and (iOS 14+) a precise-location grant.
    static func calls(ios: Int, delegate: some SimulatedLocationManagerDelegate) {
        var configuration = LocationManagerConfiguration()
        configuration.iosVersion = ios
        let manager = SimulatedLocationManager(
            authorizationAnswer: .allowWhenInUse, accuracyAuthorization: .reducedAccuracy, configuration: configuration)
        manager.delegate = delegate
        manager.reportInitialAuthorization()
        manager.requestWhenInUseAuthorization()
        manager.changeAuthorization(to: .denied)
    }

    @Test func iOS14AndLaterCallTodaysCallbackOnEveryChange() {
        let today = Today()
        Self.calls(ios: 17, delegate: today)
        // One call at creation, reduced accuracy and all: it was two (status, then accuracy).
        #expect(
            today.calls == [
                "today notDetermined reducedAccuracy", "today authorizedWhenInUse reducedAccuracy",
                "today denied reducedAccuracy",
            ])
    }

    @Test func aDelegateWithOnlyTheDeprecatedCallbackGetsStatusChangesThroughIt() {
        let deprecated = Deprecated()
        Self.calls(ios: 17, delegate: deprecated)
        #expect(
            deprecated.calls == ["deprecated notDetermined", "deprecated authorizedWhenInUse", "deprecated denied"])
    }

    @Test func aDelegateWithBothGetsOnlyTodaysOnIOS14AndLater() {
        let both = Both()
        Self.calls(ios: 14, delegate: both)
        #expect(both.calls.allSatisfy { $0.hasPrefix("today ") } && both.calls.count == 3, "\(both.calls)")
    }

    @Test func iOS13AndEarlierCallOnlyTheStatusCallback() {
        let both = Both()
        Self.calls(ios: 13, delegate: both)
        #expect(both.calls == ["deprecated notDetermined", "deprecated authorizedWhenInUse", "deprecated denied"])
    }

    /// A library hunt: the creation's callback came only to an app that called
    /// `reportInitialAuthorization()` itself, so the common pattern — start updates in the callback
    /// when already authorized — never started. It comes at the manager's first step, once.
    @Test func aManagerReportsItsCreationUnasked() {
        final class Starter: SimulatedLocationManagerDelegate {
            var calls = 0
            var fixes = 0
            func locationManagerDidChangeAuthorization(_ manager: SimulatedLocationManager) {
                calls += 1
                if manager.authorizationStatus == .authorizedWhenInUse { manager.startUpdatingLocation() }
            }
            func locationManager(_ manager: SimulatedLocationManager, didUpdateLocations locations: [Location]) {
                fixes += locations.count
            }
        }
        let starter = Starter()
        let manager = SimulatedLocationManager(status: .authorizedWhenInUse, startTime: t0)
        manager.delegate = starter
        for second in 0..<3 { manager.move(to: DeviceSample(time: t0 + Double(second), coordinate: origin)) }
        #expect(starter.calls == 1 && starter.fixes > 0, "\(starter.calls) calls, \(starter.fixes) fixes")
    }
}
