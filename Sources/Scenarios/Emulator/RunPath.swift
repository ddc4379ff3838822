/// The two paths a run takes to its store and its in-process emulator. A run a user keeps or
/// serves goes the durable way: SQLite and real HTTP over loopback. A run nobody keeps (a trial,
/// a sweep, a crowd or a scenario without `--db`) may go in memory — ``CheckinEngine/InMemoryStore``
/// and the emulator's core called without a socket, the same requests, signatures, routes,
/// faults and journal — because the run-path parity test holds its verdicts, audits and JSON
/// byte-identical to the durable path's.
public enum RunPath: String, Sendable, CaseIterable {
    case durable
    case inMemory = "memory"
}
