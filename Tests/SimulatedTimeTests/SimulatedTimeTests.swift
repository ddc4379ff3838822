import Foundation
import SimulatedTime
import Testing

/// The one time vocabulary (issue 29 item 3): a simulated clock shaped like swift-clocks'
/// `TestClock` — its `now` moves only when told — and the wall clock at the edge, both standard
/// `Clock`s telling ``EpochInstant``s.
struct SimulatedClockTests {
    static let start = EpochInstant(secondsSince1970: 1_700_000_000.25)

    @Test func nowMovesOnlyWhenToldAndNeverBack() {
        let clock = SimulatedClock(start: Self.start)
        #expect(clock.now == Self.start)
        #expect(clock.now == Self.start, "reading it does not move it")
        clock.advance(by: .seconds(30))
        #expect(clock.now.secondsSince1970 == 1_700_000_030.25)
        clock.advance(to: Self.start)
        #expect(clock.now.secondsSince1970 == 1_700_000_030.25, "an instant already passed leaves it")
        clock.advance(by: .seconds(-5))
        #expect(clock.now.secondsSince1970 == 1_700_000_030.25)
        clock.advance(to: EpochInstant(secondsSince1970: 1_700_000_031.125))
        #expect(clock.now.secondsSince1970 == 1_700_000_031.125)
    }

    @Test func sleepingMovesTheClockAndTakesNoWallTime() async throws {
        let clock = SimulatedClock(start: Self.start)
        let wall = ContinuousClock.now
        // A day of retries' waiting, through the standard `Clock` API.
        try await clock.sleep(for: .seconds(86_400))
        #expect(clock.now == Self.start.advanced(by: .seconds(86_400)))
        try await clock.sleep(until: Self.start, tolerance: nil)
        #expect(clock.now == Self.start.advanced(by: .seconds(86_400)), "a deadline passed returns at once")
        #expect(ContinuousClock.now - wall < .seconds(60))
    }

    @Test func aCancelledSleepThrowsAndLeavesTheClock() async {
        let clock = SimulatedClock(start: Self.start)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(until: Self.start.advanced(by: .seconds(10)), tolerance: nil)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.now == Self.start)
    }

    /// Instants keep the tracks' own `Double` arithmetic: a `Swift.Duration` counts attoseconds,
    /// and about one `Double` in six does not survive the trip through it, so the simulation
    /// moves instants by seconds, and durations are used where they are whole configuration values.
    @Test func instantsKeepDoubleArithmetic() throws {
        let fix = EpochInstant(secondsSince1970: 1_748_764_800.123_456_7)
        #expect(fix.advanced(bySeconds: 0.1).secondsSince1970 == 1_748_764_800.123_456_7 + 0.1)
        #expect(fix.seconds(to: fix.advanced(bySeconds: 2.5)) == 2.5)
        #expect(fix.duration(to: fix.advanced(by: .seconds(90))) == .seconds(90))
        #expect(Duration.milliseconds(250).inSeconds == 0.25)
        #expect(Duration.seconds(60).inSeconds == 60)
        #expect(Duration.seconds(-1.5).inSeconds == -1.5)
        #expect(fix < fix.advanced(bySeconds: 1e-6))

        let data = try JSONEncoder().encode([fix])
        #expect(String(decoding: data, as: UTF8.self) == "[1748764800.1234567]", "stored as the bare number")
        #expect(try JSONDecoder().decode([EpochInstant].self, from: data) == [fix])
    }

    @Test func theWallClockTellsDateTime() async throws {
        let before = Date().timeIntervalSince1970
        let now = WallClock().now.secondsSince1970
        let after = Date().timeIntervalSince1970
        #expect(before <= now && now <= after)
        let wall = ContinuousClock.now
        try await WallClock().sleep(until: EpochInstant(secondsSince1970: before - 3_600), tolerance: nil)
        #expect(ContinuousClock.now - wall < .seconds(60), "a deadline passed returns at once")
    }

    /// One generic reader works on either clock: they are the same `Clock` shape.
    @Test func bothAreStandardClocks() {
        func elapsed<C: Clock>(on clock: C, _ body: () -> Void) -> C.Duration {
            let start = clock.now
            body()
            return start.duration(to: clock.now)
        }
        let simulated = SimulatedClock(start: Self.start)
        #expect(elapsed(on: simulated) { simulated.advance(by: .seconds(42)) } == .seconds(42))
        #expect(elapsed(on: WallClock()) {} >= .zero)
    }
}

struct PacingTests {
    @Test func realTimePacingReportsProgressAcrossItsSpan() {
        let start = EpochInstant(secondsSince1970: 1_000)
        var fractions: [Double] = []
        // A billion times faster than real time: no measurable wait, the same bookkeeping.
        var pacing = RealTimePacing(rate: 1e9, span: start...start.advanced(bySeconds: 100)) { fractions.append($0) }
        pacing.wait(until: start)
        pacing.wait(until: start.advanced(bySeconds: 50))
        pacing.wait(until: start.advanced(bySeconds: 100))
        pacing.wait(until: start.advanced(bySeconds: 200))
        // The first instant only sets the origin; past the span's end the fraction stays 1.
        #expect(fractions == [0.5, 1, 1])
    }
}

/// A ``Seconds`` is the simulation's seconds with a type: exact where `Duration` rounds.
struct SecondsTests {
    @Test func spansKeepTheSecondsDurationWouldRound() throws {
        let drawn = Seconds(0.1) + Seconds(0.2)
        #expect(drawn.seconds == 0.1 + 0.2)
        let start = EpochInstant(secondsSince1970: 1_748_764_800.123_456_7)
        let odd = 0.013_668_802_350_953_295  // one of the seconds Duration rounds
        #expect(start.advanced(by: Seconds(odd)) == start.advanced(bySeconds: odd))
        #expect(Duration.seconds(odd).inSeconds != odd, "the round trip a span avoids")
    }

    @Test func spansAreDurations() throws {
        let minute = Seconds(60)
        #expect(minute / 4 == Seconds(15))
        #expect(minute * 3 == Seconds(180))
        #expect(minute / Seconds(15) == 4)
        #expect(Seconds.zero < minute && minute < .forever)
        #expect(Seconds(.milliseconds(250)) == Seconds(0.25))
        #expect(Seconds(2.5).duration == .milliseconds(2_500))
        #expect(minute.description == "60.0")
        #expect(Seconds(.milliseconds(250)).duration == .milliseconds(250))
        let data = try JSONEncoder().encode([Seconds(2.5)])
        #expect(String(decoding: data, as: UTF8.self) == "[2.5]", "stored as the bare number")
        #expect(try JSONDecoder().decode([Seconds].self, from: data) == [Seconds(2.5)])
    }
}
