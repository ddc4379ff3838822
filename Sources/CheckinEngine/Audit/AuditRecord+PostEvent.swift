import LocationEvents
import SimulatedTime

extension AuditRecord {
    /// The record as the event stream's `post` line (``PostEventFormat``) shows it at `time`:
    /// the place id and the coordinates only as they went out on the wire, and the precision
    /// `none` when nothing went out (a dry run's post was shown at the precision it would have
    /// had, where `waypost audit` and the reports say none).
    public func postEvent(at instant: EpochInstant) -> PostEvent {
        let exact = wireFields["lat"] != nil || wireFields["coordinates"] != nil
        return PostEvent(
            time: instant, device: device, network: network.rawValue, decision: decision.rawValue,
            carriesLocation: carriesLocation, precision: (carriesLocation ? precision : .none).rawValue,
            placeId: wireFields["place_id"] ?? wireFields["geo.place_id"] ?? wireFields["place"], placeName: placeName,
            latitude: exact ? latitude : nil, longitude: exact ? longitude : nil, rule: rule,
            trigger: trigger?.rawValue, region: region, detail: detail,
            gates: gates.map { PostEvent.Gate(gate: $0.gate.rawValue, passed: $0.passed, reason: $0.reason) })
    }
}
