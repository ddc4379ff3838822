import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 channel, closing the connection after the response to an HTTP/1.0
/// request that did not ask to keep it: "If the received protocol is HTTP/1.0, the 'keep-alive'
/// connection option is present […] the connection will persist after the current response;
/// otherwise, the connection will close" (RFC 9112 §9.3). Hummingbird's HTTP types carry no
/// version and it closes only on `Connection: close`, so a client reading an HTTP/1.0 answer to
/// its end (`nc`, old HTTP/1.0 tools) waited for the idle timeout.
struct EmulatorHTTP1Channel: ServerChildChannel {
    let base: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let decoder = try channel.pipeline.syncOperations.handler(
                type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(HTTP10ConnectionClose(), position: .after(decoder))
            return value
        }
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Marks an HTTP/1.0 request head without `Connection: keep-alive` with `Connection: close`,
/// which the server honours after its response.
private final class HTTP10ConnectionClose: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), head.version == .http1_0, !head.isKeepAlive else {
            return context.fireChannelRead(data)
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
