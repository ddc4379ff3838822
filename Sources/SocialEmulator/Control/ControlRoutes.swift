import Foundation
import SimulatedTime
import SocialAPI

/// The control plane under `/__waypost/`: form-encoded POSTs that script the emulator (reset,
/// accounts, geo_enabled, permissions, token states, faults, clock) and the journal. Its
/// answers are the emulator's own (`{"error": …}`), not a provider's.
struct ControlRoutes: Sendable {
    let configuration: EmulatorConfiguration
    let seed: UInt64
    let journalLimits: JournalLimits

    /// - Parameter clock: the emulator's clock, before the scripted offset.
    func respond(
        to method: String, _ path: String, parameters: RequestParameters, state: inout EmulatorState,
        clock: any EpochClock
    ) -> EmulatorResponse {
        let values = Dictionary(parameters.pairs, uniquingKeysWith: { first, _ in first })
        func error(_ message: String) -> EmulatorResponse { .json(400, ["error": message]) }
        switch (method, path) {
        case ("POST", "/__waypost/reset"):
            state = EmulatorState(configuration, seed: seed, journalLimits: journalLimits)
            return .json(200, ["status": "reset"])
        case ("GET", "/__waypost/journal"):
            // The array as before; how full the journal is, and how much it dropped, in headers.
            var response = EmulatorResponse.json(
                200, encoded: Data(state.journal.json(pathContains: values["path"])))
            response.headers["x-waypost-journal-dropped"] = String(state.journal.dropped)
            response.headers["x-waypost-journal-entries"] = String(state.journal.count)
            response.headers["x-waypost-journal-bytes"] = String(state.journal.bytes)
            response.headers["x-waypost-journal-byte-limit"] = String(state.journal.limits.bytes)
            return response
        case ("POST", "/__waypost/twitter/geo_enabled"):
            guard let user = values["user_id"], state.geoEnabled[user] != nil,
                let on = values["enabled"].map({ $0 == "true" })
            else { return error("user_id of a known user and enabled=true|false are required") }
            state.geoEnabled[user] = on
            return .json(200, ["user_id": user, "geo_enabled": String(on)])
        case ("POST", "/__waypost/twitter/protected"):
            guard let user = values["user_id"], state.protected[user] != nil,
                let on = values["protected"].flatMap({ ["true": true, "false": false][$0] })
            else { return error("user_id of a known user and protected=true|false are required") }
            state.protected[user] = on
            return .json(200, ["user_id": user, "protected": String(on)])
        case ("POST", "/__waypost/facebook/audience"):
            guard let user = values["user_id"], state.facebookAudience[user] != nil, let value = values["value"],
                GraphPrivacy.values.contains(value), value != "CUSTOM"
            else {
                return error(
                    "user_id of a known user and value=EVERYONE|FRIENDS_OF_FRIENDS|ALL_FRIENDS|SELF are required")
            }
            state.facebookAudience[user] = value
            return .json(200, ["user_id": user, "default_audience": value])
        case ("POST", "/__waypost/facebook/permissions"):
            guard let user = values["user_id"], state.permissions[user] != nil, let permission = values["permission"],
                let status = values["status"], status == "granted" || status == "declined"
            else { return error("user_id, permission and status=granted|declined are required") }
            if status == "granted" {
                state.permissions[user]?.insert(permission)
            } else {
                state.permissions[user]?.remove(permission)
            }
            return .json(200, ["user_id": user, "permission": permission, "status": status])
        case ("POST", "/__waypost/twitter/consumers"):
            guard let key = values["key"], !key.isEmpty, let secret = values["secret"], !secret.isEmpty else {
                return error("key and secret are required")
            }
            let access = values["access"] ?? "read-write"
            guard access == "read" || access == "read-write" else { return error("access is read or read-write") }
            state.consumers[key] = secret
            if access == "read" {
                state.readOnlyConsumers.insert(key)
            } else {
                state.readOnlyConsumers.remove(key)
            }
            return .json(200, ["key": key, "access": access])
        case ("POST", "/__waypost/twitter/users"):
            guard let user = values["user_id"], let name = values["screen_name"], let token = values["token"],
                let secret = values["token_secret"], ![user, name, token, secret].contains("")
            else { return error("user_id, screen_name, token and token_secret are required") }
            let geo = values["geo_enabled"].map { $0 == "true" } ?? true
            let protected = values["protected"].map { $0 == "true" } ?? false
            let bearer = values["bearer_token"].flatMap { $0.isEmpty ? nil : $0 }
            state.twitterAccounts.removeAll { $0.userID == user || $0.token == token }
            state.twitterAccounts.append(
                .init(
                    userID: user, screenName: name, token: token, tokenSecret: secret, geoEnabled: geo,
                    protected: protected, bearerToken: bearer))
            state.geoEnabled[user] = geo
            state.protected[user] = protected
            return .json(200, ["user_id": user, "screen_name": name, "geo_enabled": String(geo)])
        case ("POST", "/__waypost/facebook/users"):
            guard let user = values["user_id"], !user.isEmpty, let token = values["access_token"], !token.isEmpty else {
                return error("user_id and access_token are required")
            }
            let granted = Set((values["permissions"] ?? "").split(separator: ",").map(String.init))
            state.facebookAccounts.removeAll { $0.userID == user || $0.accessToken == token }
            state.facebookAccounts.append(.init(userID: user, accessToken: token, permissions: granted))
            state.permissions[user] = granted
            state.facebookAudience[user] = state.facebookAudience[user] ?? "EVERYONE"
            return .json(200, ["user_id": user, "permissions": granted.sorted().joined(separator: ",")])
        case ("POST", "/__waypost/facebook/tokens"):
            guard let token = values["access_token"], !token.isEmpty, let name = values["state"],
                let entry = GraphRoutes.tokenStates.first(where: { $0.key == name })
            else {
                return error(
                    "access_token and state=\(GraphRoutes.tokenStates.map(\.key).joined(separator: "|")) are required")
            }
            state.refusedTokens[token] = entry.value  // nil: valid again
            return .json(200, ["state": name])
        case ("POST", "/__waypost/faults"):
            switch Fault.parse(values) {
            case .success(let fault): return .json(200, state.faults.add(fault))
            case .failure(let failure): return error(failure.message)
            }
        case ("GET", "/__waypost/faults"):
            return .json(200, state.faults.faults)
        case ("DELETE", "/__waypost/faults"):
            state.faults.clear()
            return .json(200, ["status": "cleared"])
        case ("POST", "/__waypost/clock"):
            // A century either way is more than any test needs, and keeps dates printable.
            guard let offset = values["offset"].flatMap(Double.init), offset.isFinite, abs(offset) <= 3.2e9 else {
                return error("offset (seconds added to the emulator's clock, within ±3.2e9) is required")
            }
            state.clockOffset = offset
            return .json(200, ["offset": String(offset), "now": String(clock.now.secondsSince1970 + offset)])
        default:
            return .json(404, ["error": "unknown control endpoint \(method) \(path)"])
        }
    }
}
