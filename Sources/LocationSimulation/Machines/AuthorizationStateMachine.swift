import LocationEvents
import SimulatedTime

/// The app's location authorization as iOS grants it, as a value: the status and how it was
/// given (provisional Always, Allow Once), the prompt on screen, the one-time upgrade prompt,
/// accuracy authorization with temporary full accuracy — and how each changes.
///
/// Each `mutating func` is one thing that happens (the app asks, the user answers, the app leaves
/// use…) and returns the ``Action``s the owner carries out — the delegate callbacks and what
/// follows them — after the machine's state is settled, so that no app code ever runs while the
/// machine is being changed (the manner of AsyncHTTPClient's `HTTPRequestStateMachine`).
///
/// ```
///                  request (delay 0) / prompt due
///  notDetermined ───────────────────────────────▶ denied | whenInUse(oneTime?) | always(provisional?)
///       ▲   │ request (delay > 0): prompt on screen ─┘
///       │   └── Settings ──▶ any status
///       └── Allow Once ends (app terminated, or grace over while not in use)
///  always(provisional) ── first use not in use ──▶ always (answer Always) | whenInUse (otherwise)
///  whenInUse ── requestAlways (once, not Allow Once) ──▶ always (answer Always) | unchanged
/// ```
package struct AuthorizationStateMachine: Sendable, Equatable {
    /// The authorization status with how it was granted. Legal transitions: see the diagram above.
    package enum State: Sendable, Equatable {
        case notDetermined
        case restricted
        case denied
        /// When In Use; `oneTime` when it came from "Allow Once" (iOS 13), which ends when the
        /// app leaves use, at `expiry` (iOS's grace period after leaving use), nil while in use.
        case whenInUse(oneTime: OneTime?)
        /// Always; `provisional` when granted by "Allow While Using App" to an Always request
        /// (iOS 13), until the upgrade prompt at the first use in the background.
        case always(provisional: Bool)

        package var status: AuthorizationStatus {
            switch self {
            case .notDetermined: .notDetermined
            case .restricted: .restricted
            case .denied: .denied
            case .whenInUse: .authorizedWhenInUse
            case .always: .authorizedAlways
            }
        }

        /// The plain state of a status set from Settings (never provisional, never one-time).
        init(_ status: AuthorizationStatus) {
            switch status {
            case .notDetermined: self = .notDetermined
            case .restricted: self = .restricted
            case .denied: self = .denied
            case .authorizedWhenInUse: self = .whenInUse(oneTime: nil)
            case .authorizedAlways: self = .always(provisional: false)
            }
        }
    }

    /// Allow Once: when it ends, once the app has left use.
    package struct OneTime: Sendable, Equatable {
        package var expiry: EpochInstant?
    }

    /// Accuracy authorization (iOS 14).
    package enum Accuracy: Sendable, Equatable {
        case full
        case reduced
        /// Reduced, with temporary full accuracy granted until the app leaves use.
        case temporaryFull
    }

    /// The authorization prompt on screen: answered at `due`.
    package struct Prompt: Sendable, Equatable {
        package var due: EpochInstant
        package var wantsAlways: Bool
    }

    /// What the owner does after a transition, in order.
    package enum Action: Sendable, Equatable {
        /// `didChangeAuthorization`, and what the new status starts or stops.
        case authorizationChanged(AuthorizationStatus)
        /// `locationManagerDidChangeAuthorization` for accuracy authorization.
        case accuracyChanged(AccuracyAuthorization)
        /// The prompt appeared: diagnostics that read it are due again.
        case promptShown
    }

    package private(set) var state: State
    package private(set) var accuracy: Accuracy
    /// The prompt on screen, nil when none is.
    package private(set) var prompt: Prompt?
    /// Whether the When In Use → Always prompt has been shown (iOS shows it once).
    package private(set) var upgradeAsked = false
    /// Whether the app has called `requestAlwaysAuthorization()`, in any state: a When In Use app
    /// that has may not ask again.
    package private(set) var alwaysRequested = false
    /// A session asked for temporary full accuracy (the user's answer then decides
    /// `fullAccuracyDenied`).
    package private(set) var fullAccuracyRequested = false
    /// The user's scripted answers.
    package var script: PromptScript
    /// Whether the user grants temporary full accuracy when asked.
    package var grantsTemporaryFullAccuracy = true
    let iosVersion: Int
    let allowOnceGrace: Seconds

    package init(
        status: AuthorizationStatus, accuracy: AccuracyAuthorization, script: PromptScript, iosVersion: Int,
        allowOnceGrace: Seconds
    ) {
        self.state = State(status)
        self.accuracy = accuracy == .reducedAccuracy && iosVersion >= 14 ? .reduced : .full
        self.script = script
        self.iosVersion = iosVersion
        self.allowOnceGrace = allowOnceGrace
    }

    package var status: AuthorizationStatus { state.status }
    package var accuracyAuthorization: AccuracyAuthorization { accuracy == .reduced ? .reducedAccuracy : .fullAccuracy }
    package var isProvisionalAlways: Bool { state == .always(provisional: true) }
    package var isOneTime: Bool {
        if case .whenInUse(let oneTime) = state { return oneTime != nil }
        return false
    }
    /// When Allow Once ends, nil when it is not ending.
    package var oneTimeExpiry: EpochInstant? {
        if case .whenInUse(let oneTime?) = state { return oneTime.expiry }
        return nil
    }

    // MARK: The app asks

    /// `requestWhenInUseAuthorization()` (`wantsAlways` false) or `requestAlwaysAuthorization()`.
    /// From iOS 13 the prompt offers While Using, not Always: "Allow While Using App" gives
    /// provisional Always (Apple, WWDC 2019 "What's New in Core Location"). An app already When In
    /// Use gets the upgrade prompt at once, once only, and only if it never asked for Always before
    /// ("An application which currently has 'when-in-use' authorization and has never before
    /// requested 'always' authorization may use this method to request 'always' authorization one
    /// time only", `CLLocationManager.h`: an app answered Always, then set to While Using in
    /// Settings, asks in vain); under Allow Once, never. With Location Services off iOS offers to
    /// open Settings; the app stays denied. Each of those is shown on the screen: "Your app must
    /// be in the foreground to show a location authorization prompt" (Apple's documentation of
    /// `requestWhenInUseAuthorization()`) — asked from the background, nothing is shown and
    /// nothing changes (a library hunt: the prompt was answered there).
    package mutating func request(
        wantsAlways: Bool, inForeground: Bool, locationServicesEnabled: Bool, now: EpochInstant
    ) -> [Action] {
        guard inForeground else { return [] }
        let askedForAlwaysBefore = alwaysRequested
        alwaysRequested = alwaysRequested || wantsAlways
        if wantsAlways, case .whenInUse(let oneTime) = state {
            guard oneTime == nil, !upgradeAsked, !askedForAlwaysBefore, let answer = script.answer else { return [] }
            upgradeAsked = true
            return answer == .allowAlways ? change(to: .authorizedAlways) : []
        }
        guard locationServicesEnabled, state == .notDetermined, script.answer != nil, prompt == nil else { return [] }
        guard script.delay > .zero else { return answer(wantsAlways: wantsAlways) }
        prompt = Prompt(due: now.advanced(by: script.delay), wantsAlways: wantsAlways)
        return [.promptShown]
    }

    /// When the prompt on screen is answered, if it is by `time`.
    package func promptDue(by time: EpochInstant) -> EpochInstant? {
        prompt.flatMap { $0.due <= time ? $0.due : nil }
    }

    /// The user answers the prompt on screen.
    package mutating func answerPrompt() -> [Action] {
        guard let prompt else { return [] }
        return answer(wantsAlways: prompt.wantsAlways)
    }

    private mutating func answer(wantsAlways: Bool) -> [Action] {
        prompt = nil
        guard state == .notDetermined, let answer = script.answer else { return [] }
        let next: State
        switch answer {
        case .deny: next = .denied
        case .allowOnce: next = .whenInUse(oneTime: OneTime())
        case .allowAlways, .allowWhenInUse:
            if !wantsAlways {
                next = .whenInUse(oneTime: nil)
            } else if iosVersion >= 13 {
                next = .always(provisional: true)
            } else {
                next = answer == .allowAlways ? .always(provisional: false) : .whenInUse(oneTime: nil)
            }
        }
        state = next
        return [.authorizationChanged(next.status)]
    }

    // MARK: Settings

    /// The user sets the status in Settings: plain (neither provisional nor one-time) from now on.
    package mutating func change(to status: AuthorizationStatus) -> [Action] {
        let changed = status != state.status
        state = State(status)
        return changed ? [.authorizationChanged(status)] : []
    }

    // MARK: Use

    /// The first use of Always while the app is not in use settles provisional Always by the
    /// upgrade prompt: Always stays only if the user answers Always. `holds` is whether Always
    /// holds afterwards.
    package mutating func settleProvisionalAlways() -> (holds: Bool, actions: [Action]) {
        guard isProvisionalAlways else { return (true, []) }
        guard script.answer == .allowAlways else {
            upgradeAsked = true
            return (false, change(to: .authorizedWhenInUse))
        }
        state = .always(provisional: false)
        return (true, [])
    }

    /// The app is in use again: Allow Once no longer ends.
    package mutating func enteredUse() {
        if case .whenInUse(.some) = state { state = .whenInUse(oneTime: OneTime()) }
    }

    /// The app left use: Allow Once ends (at once when the app was terminated, else after iOS's
    /// grace period), and temporary full accuracy ends.
    package mutating func leftUse(terminated: Bool, now: EpochInstant) -> [Action] {
        var actions: [Action] = []
        if case .whenInUse(let oneTime?) = state {
            if terminated {
                actions += change(to: .notDetermined)
            } else if oneTime.expiry == nil {
                state = .whenInUse(oneTime: OneTime(expiry: now.advanced(by: allowOnceGrace)))
            }
        }
        if accuracy == .temporaryFull {
            accuracy = .reduced
            actions.append(.accuracyChanged(.reducedAccuracy))
        }
        return actions
    }

    /// Allow Once's grace ends, if it does by `time`: returns the instant.
    package func oneTimeExpiry(by time: EpochInstant) -> EpochInstant? {
        oneTimeExpiry.flatMap { $0 <= time ? $0 : nil }
    }

    /// Allow Once's grace period is over: the status returns to not determined unless the app
    /// came back into use (then Allow Once waits for it to leave use again).
    package mutating func oneTimeExpired(isInUse: Bool) -> [Action] {
        guard case .whenInUse(.some) = state else { return [] }
        guard !isInUse else {
            state = .whenInUse(oneTime: OneTime())
            return []
        }
        return change(to: .notDetermined)
    }

    // MARK: Accuracy

    /// `requestTemporaryFullAccuracyAuthorization(withPurposeKey:)` (iOS 14): granted (by the
    /// user's scripted answer) only to an authorized app in the foreground with reduced accuracy
    /// ("The request always fails … The app is in the background", Apple): in use in the
    /// background, with updates running, it fails as well.
    package mutating func requestTemporaryFullAccuracy(inForeground: Bool) -> [Action] {
        guard accuracy == .reduced, status.allowsLocation, inForeground, grantsTemporaryFullAccuracy else { return [] }
        accuracy = .temporaryFull
        return [.accuracyChanged(.fullAccuracy)]
    }

    /// A service session with a full-accuracy purpose key asked.
    package mutating func noteFullAccuracyRequested() {
        fullAccuracyRequested = true
    }
}
