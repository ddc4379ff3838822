import CLibXML2
import WaypostSupport

/// A position in the input, 1-based.
struct SourcePosition {
    var line: Int
    var column: Int

    /// Where an element's text begins, from its start tag's position: libxml2 calls the start
    /// handler with its input at the tag's closing `>`, so the text is one column on (counted
    /// from the `>`, a value on the tag's own line was placed one column early).
    var afterTag: SourcePosition { SourcePosition(line: line, column: column + 1) }
}

/// A failure found while reading, before the file name is attached.
struct ReadFailure: Error {
    var kind: TrackReadError.Kind
    var position: SourcePosition
    var message: String

    /// A track point earlier than its predecessor; times shown as precisely as needed to differ.
    static func timeGoesBackwards(_ time: Double, after previous: Double, at position: SourcePosition) -> ReadFailure {
        var digits = 0
        while digits < 6,
            XSDDateTime.format(time, fractionDigits: digits) == XSDDateTime.format(previous, fractionDigits: digits)
        {
            digits += 3
        }
        return ReadFailure(
            kind: .invalid, position: position,
            message:
                "time goes backwards in a track: \(XSDDateTime.format(time, fractionDigits: digits)) after \(XSDDateTime.format(previous, fractionDigits: digits))"
        )
    }
}

/// The namespaces Waypost tells apart. Matching is by namespace URI, never by prefix.
enum XMLNamespace {
    case none, kml, gx, gpx, other

    init(uri: String) {
        switch uri {
        case "": self = .none
        case "http://www.opengis.net/kml/2.2", "http://www.opengis.net/kml/2.3",
            "http://earth.google.com/kml/2.0", "http://earth.google.com/kml/2.1",
            "http://earth.google.com/kml/2.2":
            self = .kml
        case "http://www.google.com/kml/ext/2.2": self = .gx
        case "http://www.topografix.com/GPX/1/0", "http://www.topografix.com/GPX/1/1": self = .gpx
        default: self = .other
        }
    }
}

/// An element's identity: its namespace class and, when it is one Waypost knows, its local name.
struct ElementName: Equatable {
    var namespace: XMLNamespace
    var tag: Tag
    /// The local name as written (for extension values and error messages).
    var local: String
}

/// Local names of the KML and GPX elements Waypost reads.
enum Tag: String {
    // KML
    case kml, Document, Folder, Placemark, name, description, Point, LineString, LinearRing, Polygon
    case outerBoundaryIs, innerBoundaryIs, MultiGeometry, coordinates, altitudeMode, Track, MultiTrack
    case when, coord, TimeStamp, TimeSpan, begin, end, ExtendedData, Data, value, SchemaData, SimpleData
    case SimpleArrayData
    // GPX
    case gpx, metadata, trk, trkseg, trkpt, rte, rtept, wpt, ele, time, desc, course, speed, extensions
    case unknown
}

/// The attributes of one start tag, as libxml2 hands them over (5 pointers each).
struct XMLAttributes {
    let base: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    let count: Int

    /// The value of the attribute with local name `name` (any namespace), as bytes.
    func value(_ name: StaticString) -> UnsafeBufferPointer<UInt8>? {
        guard let base else { return nil }
        for i in 0..<count {
            guard let local = base[5 * i], let start = base[5 * i + 3], let end = base[5 * i + 4] else { continue }
            if Self.equal(local, name) {
                return UnsafeBufferPointer(start: start, count: end - start)
            }
        }
        return nil
    }

    private static func equal(_ cString: UnsafePointer<xmlChar>, _ name: StaticString) -> Bool {
        let expected = name.utf8Start
        for i in 0..<name.utf8CodeUnitCount where cString[i] != expected[i] { return false }
        return cString[name.utf8CodeUnitCount] == 0
    }

    /// The value of the attribute `name` as text. libxml2, not replacing entities, hands over
    /// an `&` written `&amp;` (or `&#38;`) as `&#38;` for its own SAX2 layer to decode; any other
    /// reference comes decoded, and an `&` cannot stand alone. `name="k&amp;y"` was read
    /// `k&#38;y`, and grew with every KML round trip (a black-box hunt).
    func string(_ name: StaticString) -> String? {
        guard let bytes = value(name) else { return nil }
        guard bytes.contains(UInt8(ascii: "&")) else { return String(decoding: bytes, as: UTF8.self) }
        let escaped = "&#38;".utf8
        var decoded: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index...].starts(with: escaped) {
                decoded.append(UInt8(ascii: "&"))
                index += escaped.count
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }
}

/// What a format reader (KML, GPX) does with the parser's events.
protocol XMLEventHandler: AnyObject {
    func startElement(_ name: ElementName, attributes: XMLAttributes, at position: SourcePosition) throws(ReadFailure)
    func characters(_ bytes: UnsafeBufferPointer<UInt8>, at position: SourcePosition) throws(ReadFailure)
    func endElement(_ name: ElementName, at position: SourcePosition) throws(ReadFailure)
    /// Called once after the last byte; reports anything left incomplete.
    func finish() throws(ReadFailure)
    /// The first track point earlier than its predecessor, if any: an error or not as the
    /// reader's ``TimeOrder`` says.
    var backwards: ReadFailure? { get }
}

/// Safety limits for untrusted input.
public struct ReaderLimits: Sendable {
    /// Deepest element nesting accepted. Real KML nests a few Folders deep; libkml stops at 100.
    public var maximumDepth = 256
    /// Most attributes accepted on one tag.
    public var maximumAttributes = 64
    /// Longest text accepted in a name, description, time or value. Coordinates are streamed
    /// and not subject to this limit: multi-megabyte LineStrings are real.
    public var maximumTextBytes = 1 << 20

    public init() {}
}

/// One streaming parse with libxml2's SAX2 push parser, configured for hostile input:
/// no entity substitution (no NOENT), no DTD loading, no network (NONET), any DOCTYPE refused
/// as soon as it is seen, and a deny-all external entity loader. Depth, attribute count and
/// captured-text size are guarded here, since the SAX interface does not limit them.
final class SAXSession {
    private let limits: ReaderLimits
    // One session is driven by one thread, callback by callback, so the state below never sees
    // overlapping access; unchecked exclusivity removes a runtime check per access (~25% of parse time).
    @exclusivity(unchecked) private var context: xmlParserCtxtPtr?
    @exclusivity(unchecked) private var failure: ReadFailure?
    @exclusivity(unchecked) private var depth = 0
    @exclusivity(unchecked) private var names: [(local: UnsafeRawPointer, uri: UnsafeRawPointer?, name: ElementName)] =
        []
    @exclusivity(unchecked) private var floodGuard: AttributeFloodGuard

    /// The format reader, chosen by the root element. Concrete cases rather than an
    /// existential: events are dispatched statically, with no retain per call.
    private enum Reader {
        case undecided
        case kml(KMLHandler)
        case gpx(GPXHandler)
    }
    @exclusivity(unchecked) private var reader = Reader.undecided {
        didSet {
            switch reader {
            case .undecided: borrowed = .undecided
            case .kml(let kml): borrowed = .kml(Unmanaged.passUnretained(kml))
            case .gpx(let gpx): borrowed = .gpx(Unmanaged.passUnretained(gpx))
            }
        }
    }

    /// ``reader``'s handler for the callbacks, borrowed: `reader` owns it, and binding it from
    /// there retained and released it on every start tag, text run and end tag (an eighth of a read).
    private enum Borrowed {
        case undecided
        case kml(Unmanaged<KMLHandler>)
        case gpx(Unmanaged<GPXHandler>)
    }
    @exclusivity(unchecked) private var borrowed = Borrowed.undecided

    /// Where the handlers' long columns go: one file for the whole read.
    private let file = SpillFile()

    init(limits: ReaderLimits) {
        self.limits = limits
        self.floodGuard = AttributeFloodGuard(limit: 4 * limits.maximumAttributes)
        Self.hardenLibXML
    }

    /// The first point of a track that went back in time, if any.
    var backwards: ReadFailure? {
        switch reader {
        case .undecided: nil
        case .kml(let kml): kml.backwards
        case .gpx(let gpx): gpx.backwards
        }
    }

    /// What was read, once the root element has been seen.
    var track: Track? {
        switch reader {
        case .undecided: nil
        case .kml(let kml): kml.track
        case .gpx(let gpx): gpx.track
        }
    }

    /// Chooses KML or GPX from the root element.
    private func chooseReader(_ root: ElementName, at position: SourcePosition) throws(ReadFailure) {
        switch (root.tag, root.namespace) {
        case (.kml, .kml), (.kml, .none), (.Document, .kml), (.Folder, .kml), (.Placemark, .kml):
            // A KML document, or a fragment rooted at a feature in a KML namespace (as libkml reads).
            reader = .kml(KMLHandler(limits: limits, spillingTo: file))
        case (.gpx, .gpx), (.gpx, .none):
            reader = .gpx(GPXHandler(limits: limits, spillingTo: file))
        default:
            throw ReadFailure(
                kind: .unsupported, position: position,
                message:
                    "root element <\(root.local)> is neither KML (<kml>, or a Document, Folder or Placemark in a KML namespace) nor GPX <gpx>"
            )
        }
    }

    deinit {
        if let context { xmlFreeParserCtxt(context) }
    }

    /// libxml2's process-wide settings: initialise once and never load external entities.
    private static let hardenLibXML: Void = {
        xmlInitParser()
        xmlSetExternalEntityLoader { _, _, _ in nil }
    }()

    /// Feeds the next chunk of the document; `last` ends it.
    func feed(_ bytes: UnsafeRawBufferPointer, last: Bool) throws(ReadFailure) {
        if failure == nil, let offset = floodGuard.scan(bytes) {
            // Refused before libxml2 spends quadratic time on the tag.
            failure = ReadFailure(
                kind: .refused, position: position(after: bytes, offset: offset),
                message: "a tag has more than \(floodGuard.limit) attributes or namespace declarations")
        }
        if failure == nil {
            let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
            if let context {
                xmlParseChunk(context, base, Int32(bytes.count), last ? 1 : 0)
            } else {
                // The first chunk goes to the constructor so libxml2 can detect the encoding.
                context = Self.makeContext(for: self, first: base, count: Int32(bytes.count))
                if last, let context { xmlParseChunk(context, nil, 0, 1) }
            }
        }
        if let failure { throw failure }
        if last {
            switch reader {
            case .undecided: throw ReadFailure(kind: .unsupported, position: position, message: "no root element")
            case .kml(let kml): try kml.finish()
            case .gpx(let gpx): try gpx.finish()
            }
        }
    }

    private static func makeContext(for session: SAXSession, first: UnsafePointer<CChar>?, count: Int32)
        -> xmlParserCtxtPtr?
    {
        var sax = xmlSAXHandler()
        sax.initialized = UInt32(XML_SAX2_MAGIC)
        sax.startElementNs = { user, local, _, uri, _, _, attributeCount, _, attributes in
            guard let user else { return }
            SAXSession.from(user)._withUnsafeGuaranteedRef {
                $0.start(local: local, uri: uri, attributes: attributes, count: Int(attributeCount))
            }
        }
        sax.endElementNs = { user, local, _, uri in
            guard let user else { return }
            SAXSession.from(user)._withUnsafeGuaranteedRef { $0.end(local: local, uri: uri) }
        }
        sax.characters = { user, bytes, length in
            guard let user else { return }
            SAXSession.from(user)._withUnsafeGuaranteedRef { $0.text(bytes, Int(length)) }
        }
        sax.cdataBlock = sax.characters
        sax.internalSubset = { user, _, _, _ in
            guard let user else { return }
            SAXSession.from(user)._withUnsafeGuaranteedRef {
                $0.refuse("DOCTYPE declarations are refused (they enable entity expansion and external entities)")
            }
        }
        sax.externalSubset = sax.internalSubset
        sax.entityDecl = { user, _, _, _, _, _ in
            guard let user else { return }
            SAXSession.from(user)._withUnsafeGuaranteedRef { $0.refuse("entity declarations are refused") }
        }
        sax.serror = { user, error in
            guard let user, let error else { return }
            SAXSession.from(user)._withUnsafeGuaranteedRef { $0.libxmlError(error.pointee) }
        }
        let user = Unmanaged.passUnretained(session).toOpaque()
        guard let context = xmlCreatePushParserCtxt(&sax, user, first, count, nil) else { return nil }
        session.context = context
        // Never NOENT (entity substitution), never DTDLOAD; NONET forbids any network access.
        xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue))
        return context
    }

    /// The session behind libxml2's user pointer, borrowed for the callback without a retain:
    /// the session outlives its parser context.
    private static func from(_ user: UnsafeMutableRawPointer) -> Unmanaged<SAXSession> {
        Unmanaged<SAXSession>.fromOpaque(user)
    }

    // MARK: Callbacks

    private var position: SourcePosition {
        guard let input = context?.pointee.input?.pointee else { return SourcePosition(line: 0, column: 0) }
        return SourcePosition(line: Int(input.line), column: Int(input.col))
    }

    /// Where byte `offset` of a chunk not yet parsed lies: libxml2 has consumed everything
    /// before the chunk, so count on from its position.
    private func position(after bytes: UnsafeRawBufferPointer, offset: Int) -> SourcePosition {
        var line = context == nil ? 1 : position.line
        var column = context == nil ? 1 : position.column
        for byte in bytes[..<offset] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return SourcePosition(line: line, column: column)
    }

    private func start(
        local: UnsafePointer<xmlChar>?, uri: UnsafePointer<xmlChar>?,
        attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, count: Int, counted: Bool = false
    ) {
        guard failure == nil, let local else { return }
        if !counted { depth += 1 }
        if depth > limits.maximumDepth {
            return stop(.refused, "elements nest deeper than \(limits.maximumDepth) levels")
        }
        if count > limits.maximumAttributes {
            return stop(.refused, "a tag has \(count) attributes; at most \(limits.maximumAttributes) are accepted")
        }
        let name = elementName(local, uri)
        let attributes = XMLAttributes(base: attributes, count: count)
        do {
            switch borrowed {
            case .kml(let kml):
                try kml.borrowing { (handler) throws(ReadFailure) in
                    try handler.startElement(name, attributes: attributes, at: position)
                }
            case .gpx(let gpx):
                try gpx.borrowing { (handler) throws(ReadFailure) in
                    try handler.startElement(name, attributes: attributes, at: position)
                }
            case .undecided:
                try chooseReader(name, at: position)
                start(local: local, uri: uri, attributes: attributes.base, count: count, counted: true)
            }
        } catch {
            fail(error)
        }
    }

    private func end(local: UnsafePointer<xmlChar>?, uri: UnsafePointer<xmlChar>?) {
        guard failure == nil, let local else { return }
        depth -= 1
        do {
            let name = elementName(local, uri)
            switch borrowed {
            case .kml(let kml):
                try kml.borrowing { (handler) throws(ReadFailure) in try handler.endElement(name, at: position) }
            case .gpx(let gpx):
                try gpx.borrowing { (handler) throws(ReadFailure) in try handler.endElement(name, at: position) }
            case .undecided: break
            }
        } catch {
            fail(error)
        }
    }

    private func text(_ bytes: UnsafePointer<xmlChar>?, _ length: Int) {
        guard failure == nil, let bytes else { return }
        let chunk = UnsafeBufferPointer(start: bytes, count: length)
        do {
            switch borrowed {
            case .kml(let kml):
                try kml.borrowing { (handler) throws(ReadFailure) in try handler.characters(chunk, at: position) }
            case .gpx(let gpx):
                try gpx.borrowing { (handler) throws(ReadFailure) in try handler.characters(chunk, at: position) }
            case .undecided: break
            }
        } catch {
            fail(error)
        }
    }

    private func refuse(_ message: String) {
        guard failure == nil else { return }
        stop(.refused, message)
    }

    private func libxmlError(_ error: xmlError) {
        // Warnings (e.g. an unknown namespace version) do not stop the parse.
        guard failure == nil, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        var message = error.message.map { String(cString: $0) } ?? "XML error \(error.code)"
        message = message.split(whereSeparator: \.isNewline).first.map(String.init) ?? message
        message = message.trimming(" ,!")
        let kind: TrackReadError.Kind = error.code == XML_ERR_UNDECLARED_ENTITY.rawValue ? .refused : .malformed
        failure = ReadFailure(
            kind: kind, position: SourcePosition(line: Int(error.line), column: Int(error.int2)),
            message: explained(error.code, libxml: message))
        if let context { xmlStopParser(context) }
    }

    /// libxml2's message, or what it means where libxml2's words say the opposite: a file cut
    /// short inside its root element is "Extra content at the end of the document", and a file
    /// of anything but XML (a ZIP that is not one, JSON, text) "Document is empty".
    private func explained(_ code: Int32, libxml message: String) -> String {
        switch code {
        case Int32(XML_ERR_DOCUMENT_END.rawValue) where depth > 0:
            return
                "the file ends before its document does (\(depth) element\(depth == 1 ? "" : "s") still open): cut short?"
        case Int32(XML_ERR_DOCUMENT_END.rawValue) where names.isEmpty:
            return "no root element (a KML or GPX document holds one)"
        case Int32(XML_ERR_DOCUMENT_EMPTY.rawValue):
            return
                "not KML or GPX: no XML element where the document starts (KMZ is a ZIP archive, NMEA 0183 text lines)"
        default:
            return "not well-formed XML: \(message)"
        }
    }

    private func stop(_ kind: TrackReadError.Kind, _ message: String) {
        fail(ReadFailure(kind: kind, position: position, message: message))
    }

    private func fail(_ error: ReadFailure) {
        failure = error
        if let context { xmlStopParser(context) }
    }

    private func elementName(_ local: UnsafePointer<xmlChar>, _ uri: UnsafePointer<xmlChar>?) -> ElementName {
        // libxml2 interns names in the parser's dictionary, so pointers identify them; a
        // document uses a few dozen names, so a linear scan beats hashing.
        let localKey = UnsafeRawPointer(local)
        let uriKey = uri.map(UnsafeRawPointer.init)
        for entry in names where entry.local == localKey && entry.uri == uriKey { return entry.name }
        let localName = String(cString: local)
        let name = ElementName(
            namespace: XMLNamespace(uri: uri.map { String(cString: $0) } ?? ""),
            tag: Tag(rawValue: localName) ?? .unknown,
            local: localName)
        if names.count < 512 { names.append((localKey, uriKey, name)) }
        return name
    }
}

extension String {
    fileprivate func trimming(_ set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return String(s)
    }
}

extension Unmanaged {
    /// Runs `body` on the instance without retaining it (see `_withUnsafeGuaranteedRef`), keeping
    /// `body`'s typed error.
    fileprivate func borrowing<E: Error>(_ body: (Instance) throws(E) -> Void) throws(E) {
        var failure: E?
        _withUnsafeGuaranteedRef { instance in
            do throws(E) { try body(instance) } catch { failure = error }
        }
        if let failure { throw failure }
    }
}
