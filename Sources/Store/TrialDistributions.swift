import SimulatedTime

/// One expectation of a trials run, as the run's map shows it: its verdict over the trials and
/// when its event or post came in each.
public struct TrialDistribution: Sendable, Equatable {
    /// The expectation, as the report writes it.
    public var description: String
    /// What the trials found: how often it held, and how late.
    public var verdict: String
    public var passed: Bool
    /// From the run's start to the matching event or post in the exact run; nil: none.
    public var exact: Seconds?
    /// The same for trials 1…N, in order; nil where a trial had none.
    public var times: [Seconds?]

    public init(description: String, verdict: String, passed: Bool, exact: Seconds?, times: [Seconds?]) {
        (self.description, self.verdict, self.passed, self.exact, self.times) = (
            description, verdict, passed, exact, times
        )
    }
}

extension Store {
    /// Records the trials' distributions beside `run` (the exact run), replacing earlier ones.
    public func saveTrialDistributions(_ distributions: [TrialDistribution], run: Int64) throws(StoreError) {
        try transaction { db throws(StoreError) in
            try db.run("DELETE FROM trial_expectations WHERE run = ?", [.integer(run)])
            for (position, distribution) in distributions.enumerated() {
                try db.run(
                    "INSERT INTO trial_expectations (run, position, description, verdict, passed, exact) "
                        + "VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        .integer(run), SQLValue(position), .text(distribution.description),
                        .text(distribution.verdict), SQLValue(distribution.passed),
                        SQLValue(distribution.exact?.seconds),
                    ])
                for (index, time) in distribution.times.enumerated() {
                    try db.run(
                        "INSERT INTO trial_times (run, position, trial, seconds) VALUES (?, ?, ?, ?)",
                        [.integer(run), SQLValue(position), SQLValue(index + 1), SQLValue(time?.seconds)])
                }
            }
        }
    }

    /// The distributions recorded beside `run`; empty for a run that was not a trials run.
    public func trialDistributions(run: Int64) throws(StoreError) -> [TrialDistribution] {
        try locked { db throws(StoreError) in
            var distributions = try db.rows(
                "SELECT description, verdict, passed, exact FROM trial_expectations WHERE run = ? ORDER BY position",
                [.integer(run)]
            ) {
                TrialDistribution(
                    description: $0.text(0), verdict: $0.text(1), passed: $0.bool(2),
                    exact: $0.optionalDouble(3).map(Seconds.init),
                    times: [])
            }
            let times = try db.rows(
                "SELECT position, seconds FROM trial_times WHERE run = ? ORDER BY position, trial", [.integer(run)]
            ) { (position: $0.int(0), seconds: $0.optionalDouble(1).map(Seconds.init)) }
            for time in times where distributions.indices.contains(time.position) {
                distributions[time.position].times.append(time.seconds)
            }
            return distributions
        }
    }
}
