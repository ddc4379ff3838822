import CheckinEngine
import Geo
import LocationEvents
import PropertyBased
import SocialEmulator
import TestSupport
import Testing

/// For random privacy settings, network settings and event sequences: no request that reaches
/// the emulator carries lat, long, place_id, coordinates, place or center unless every gate of
/// its post passed — checked on the emulator's journal, not on the engine's own records.
@Suite("Privacy invariants on the wire")
struct PrivacyPropertyTests {
    struct Settings: Sendable, CustomStringConvertible {
        var optIn: Bool
        var acknowledged: Bool
        var precision: Precision
        var consent: ConsentMode
        var answers: [Bool]
        var zone: Int?
        var geoEnabled: Bool
        var publishCheckins: Bool
        var always: Bool
        var visits: [Int]

        var description: String {
            "optIn \(optIn) ack \(acknowledged) \(precision) \(consent) \(answers) zone \(zone.map(String.init) ?? "-") geo \(geoEnabled) fb \(publishCheckins) always \(always) visits \(visits)"
        }
    }

    /// The settings spelled by the bits of `flags` (so the generator shrinks towards all-off).
    static func settings(flags: Int, answers: [Int], visits: [Int]) -> Settings {
        func bit(_ n: Int) -> Bool { flags >> n & 1 == 1 }
        return Settings(
            optIn: bit(0), acknowledged: bit(1), precision: Precision.allCases[flags >> 2 & 3],
            consent: ConsentMode.allCases[(flags >> 4 & 3) % 3], answers: answers.map { $0 == 1 },
            zone: bit(6) ? flags >> 7 & 3 : nil, geoEnabled: bit(9), publishCheckins: bit(10), always: bit(11),
            visits: visits)
    }

    @Test("Location goes out only when every gate passed")
    func locationOnlyWhenEveryGatePassed() async {
        await propertyCheck(
            count: 40, input: Gen.int(in: 0...4095), Gen.int(in: 0...1).array(of: 0...6),
            Gen.int(in: 0...3).array(of: 1...6)
        ) { flags, answers, visits in
            let s = Self.settings(flags: flags, answers: answers, visits: visits)
            var profile = PrivacyProfile()
            profile.optIn = s.optIn
            profile.disclosureAcknowledged = s.acknowledged
            profile.maximumPrecision = s.precision
            profile.consent = s.consent
            profile.answers = s.answers
            if let zone = s.zone { profile.zones = [PrivacyZone(name: "z", center: cafes[zone].center, radius: 250)] }
            let events = enters(
                s.visits.enumerated().map { ($1, $0 * 7 + 1) },
                authorization: s.always ? .authorizedAlways : .authorizedWhenInUse,
                appState: s.always ? .foreground : .background)
            let run: RunResult
            do {
                run = try await runEngine(
                    rules: [rule(precision: .exact, message: "Visit {region} {time}")], profile: profile,
                    events: events,
                    configure: {
                        $0.twitterAccounts[0].geoEnabled = s.geoEnabled
                        $0.facebookAccounts[0].permissions =
                            s.publishCheckins ? ["publish_checkins"] : ["public_profile"]
                    })
            } catch {
                Issue.record("run failed: \(error)")
                return
            }
            for (index, request) in run.journal.enumerated() where request.carriesLocation {
                let isPost = request.method == "POST"
                let network: Network = request.path.hasPrefix("/1") ? .twitter : .facebook
                // A lookup is for the post that follows it on the same network.
                let post =
                    isPost
                    ? request
                    : run.journal[(index + 1)...].first {
                        $0.method == "POST" && ($0.path.hasPrefix("/1") == (network == .twitter))
                    }
                let message = post?.parameters["status"] ?? post?.parameters["message"]
                let record = run.audit.first { $0.network == network && $0.message == message }
                #expect(
                    record?.gates.allPassed == true,
                    "\(request.method) \(request.path) \(request.parameters) for \(record?.gates ?? [])")
            }
            // Zones, opt-in and authorization stop everything for their posts.
            if !s.optIn || !s.acknowledged || !s.always || s.consent == .never { #expect(run.locating.isEmpty) }
            if let zone = s.zone {
                #expect(!run.audit.contains { $0.region == cafes[zone].identifier && $0.decision != .blocked })
            }
        }
    }
}
