import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 channel, with each request head checked and normalised first
/// (``RequestHeadCheck``): Hummingbird's HTTP types carry no version, and it closes a
/// connection only on `Connection: close` spelled so, alone.
struct EmulatorHTTP1Channel: ServerChildChannel {
    let base: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let decoder = try channel.pipeline.syncOperations.handler(
                type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(RequestHeadCheck(), position: .after(decoder))
            return value
        }
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// What RFC 9112 asks of a server about a request's head, which the router cannot see:
/// - the connection closes after the answer when the request does not keep it alive — an
///   HTTP/1.0 request without `keep-alive` (§9.3; a client reading to the end, `nc`, waited for
///   the idle timeout), or a `Connection` list holding `close` in any case (§9.6, RFC 9110
///   §7.6.1: `Close` and `keep-alive, close` kept it open);
/// - an HTTP/1.1 request with no `Host`, two, or one that is no `host[:port]` is 400 (§3.2);
/// - a request in absolute form (`GET http://host/path`) is for the host it names, whatever its
///   `Host` says (§3.2.2): the control plane judged the header;
/// - a request that sends `Expect: 100-continue` is told at once to send its body (RFC 9110
///   §10.1.1: curl waited a second for it), when no earlier request's answer is still to come.
/// A refused head reaches the handler marked with ``problemHeader`` (one a client sent is
/// dropped), which answers 400 with the reason.
final class RequestHeadCheck: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    static let problemHeader = "x-waypost-request-problem"
    /// Requests read whose answers have not ended: an interim answer must not overtake one.
    private var unanswered = 0

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        head.headers.remove(name: Self.problemHeader)
        let problem = Self.normalise(&head)
        if let problem { head.headers.add(name: Self.problemHeader, value: problem) }
        let continues = head.headers["expect"].contains { $0.lowercased() == "100-continue" }
        if continues && problem == nil && unanswered == 0 && head.version.major == 1 && head.version.minor >= 1 {
            context.writeAndFlush(
                wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
        }
        unanswered += 1
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { unanswered = max(0, unanswered - 1) }
        context.write(data, promise: promise)
    }

    /// Normalises `head` in place; the reason it must be refused, or nil.
    static func normalise(_ head: inout HTTPRequestHead) -> String? {
        if !head.isKeepAlive { head.headers.replaceOrAdd(name: "connection", value: "close") }
        let uri = head.uri.lowercased()
        if uri.hasPrefix("http://") || uri.hasPrefix("https://"), let url = URLComponents(string: head.uri),
            let host = url.host, !host.isEmpty
        {
            let name = URIHost.bracketed(host)
            head.headers.replaceOrAdd(name: "host", value: url.port.map { "\(name):\($0)" } ?? name)
            head.uri =
                (url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath)
                + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
            return nil
        }
        let hosts = head.headers["host"]
        let http11 = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
        guard http11 || !hosts.isEmpty else { return nil }
        guard hosts.count == 1, let host = hosts.first else {
            return hosts.isEmpty
                ? "an HTTP/1.1 request names its host (RFC 9112 §3.2): no Host header"
                : "a request has one Host header (RFC 9112 §3.2), not \(hosts.count)"
        }
        guard isAuthority(host) else {
            return "the Host header is not a host and an optional port (RFC 9112 §3.2)"
        }
        return nil
    }

    /// `host[:port]`: a name or IPv4 address of RFC 3986's reg-name characters, or an IPv6
    /// literal in brackets, then digits after a colon.
    static func isAuthority(_ value: String) -> Bool {
        var host = Substring(value)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            let literal = host[host.index(after: host.startIndex)..<close]
            guard !literal.isEmpty, literal.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return false
            }
            host = host[host.index(after: close)...]
            guard host.isEmpty || host.hasPrefix(":") else { return false }
        } else {
            let name = host.prefix { $0 != ":" }
            guard !name.isEmpty,
                name.unicodeScalars.allSatisfy(isRegName)
            else { return false }
            host = host[name.endIndex...]
        }
        guard host.hasPrefix(":") else { return host.isEmpty }
        return host.dropFirst().allSatisfy(\.isASCII) && host.dropFirst().allSatisfy(\.isNumber)
    }

    private static func isRegName(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return false }
        let byte = UInt8(truncatingIfNeeded: scalar.value)
        return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || "-._~!$&'()*+,;=%".unicodeScalars.contains(scalar)
    }
}
