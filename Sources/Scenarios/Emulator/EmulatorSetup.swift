import Foundation
import SimulatedTime
import SocialAPI
import SocialEmulator

/// How the in-process emulator starts and what changes during the run.
public struct EmulatorSetup: Sendable {
    /// A change to the accounts at an offset from the run's start.
    public struct Change: Sendable {
        public var at: Seconds
        public var geoEnabled: Bool?
        public var permissions: Set<String>?
        /// The Facebook user's access token from now on: a name from
        /// `EmulatorCore.graphTokenStates` (`valid`, `expired`, `password-changed`, …).
        public var graphToken: String?
        /// The Twitter account's `protected` flag from now on.
        public var protected: Bool?

        public init(
            at: Seconds, geoEnabled: Bool? = nil, permissions: Set<String>? = nil, graphToken: String? = nil,
            protected: Bool? = nil
        ) {
            self.at = at
            self.geoEnabled = geoEnabled
            self.permissions = permissions
            self.graphToken = graphToken
            self.protected = protected
        }
    }

    /// A fault active between offsets from the run's start; the run sets the fault's own
    /// `from`/`until` (instants on the emulator's clock) from them.
    public struct TimedFault: Sendable {
        public var fault: Fault
        public var from: Seconds?
        public var until: Seconds?

        public init(_ fault: Fault, from: Seconds? = nil, until: Seconds? = nil) {
            (self.fault, self.from, self.until) = (fault, from, until)
        }
    }

    /// The Twitter account's `geo_enabled`.
    public var geoEnabled = true
    /// Which API the engine posts tweets through (`twitterAPI: v1.1 | v2`).
    public var twitterAPI = TwitterAPIVersion.v1_1
    /// The Twitter account's `protected` flag: its tweets are seen by approved followers only.
    public var protected = false
    /// The Facebook app's default audience (a Graph privacy value the user chose at login).
    public var facebookAudience = "EVERYONE"
    /// The Facebook user's granted permissions.
    public var permissions: Set<String> = ["public_profile", "publish_checkins", "publish_actions"]
    /// Requests per 15-minute window to each geo endpoint.
    public var geoRateLimit = 15
    public var faults: [TimedFault] = []
    public var changes: [Change] = []

    public init() {}

    /// The demo accounts as this set-up starts them.
    var configuration: EmulatorConfiguration {
        var configuration = EmulatorConfiguration.demo
        for index in configuration.twitterAccounts.indices {
            configuration.twitterAccounts[index].geoEnabled = geoEnabled
            configuration.twitterAccounts[index].protected = protected
        }
        for index in configuration.facebookAccounts.indices {
            configuration.facebookAccounts[index].permissions = permissions
            configuration.facebookAccounts[index].defaultAudience = facebookAudience
        }
        configuration.geoRateLimit = geoRateLimit
        return configuration
    }
}

extension InProcessEmulator {
    /// Applies a scripted account change through the emulator's control plane.
    func apply(_ change: EmulatorSetup.Change) async {
        let demo = EmulatorConfiguration.demo
        if let on = change.geoEnabled, let user = demo.twitterAccounts.first?.userID {
            await core.control("POST", "/__waypost/twitter/geo_enabled", "user_id=\(user)&enabled=\(on)")
        }
        if let on = change.protected, let user = demo.twitterAccounts.first?.userID {
            await core.control("POST", "/__waypost/twitter/protected", "user_id=\(user)&protected=\(on)")
        }
        if let state = change.graphToken, let token = demo.facebookAccounts.first?.accessToken {
            await core.control("POST", "/__waypost/facebook/tokens", "access_token=\(token)&state=\(state)")
        }
        if let granted = change.permissions, let user = demo.facebookAccounts.first?.userID {
            let known: Set<String> = ["public_profile", "publish_checkins", "publish_actions"]
            for permission in known.union(granted).sorted() {
                let status = granted.contains(permission) ? "granted" : "declined"
                await core.control(
                    "POST", "/__waypost/facebook/permissions",
                    "user_id=\(user)&permission=\(permission)&status=\(status)")
            }
        }
    }
}
