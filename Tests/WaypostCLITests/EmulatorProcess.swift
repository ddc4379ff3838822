import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `waypost emulator --port 0` in a process of its own, its address read from the banner.
final class EmulatorProcess {
    let process = Process()
    /// The banner's first line, `Waypost emulator listening on http://127.0.0.1:PORT/`.
    let banner: String
    /// `http://127.0.0.1:PORT/`.
    let base: String

    /// `arguments` follow `emulator --port PORT` (0: any free port).
    init(in directory: URL = Corpus.repositoryRoot, port: Int = 0, arguments: [String] = []) throws {
        process.executableURL = CLITests.executable
        process.arguments = ["emulator", "--port", "\(port)"] + arguments
        process.currentDirectoryURL = directory
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var banner = Data()
        while !banner.contains(UInt8(ascii: "\n")) {  // scripts wait for this line, so do tests
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            banner.append(chunk)
        }
        let text = String(decoding: banner, as: UTF8.self)
        self.banner = text.split(separator: "\n").first.map(String.init) ?? ""
        base = self.banner.split(separator: " ").last.map(String.init) ?? ""
        guard base.hasPrefix("http://127.0.0.1:") else { throw CocoaError(.fileReadUnknown) }
    }

    /// A loopback port nothing listens on now (the system's pick, released at once): for a server
    /// that is down, to be started there later.
    static func unusedPort() throws -> Int {
        let (listener, port) = try LoopbackSocket.bound(listening: false)
        close(listener)
        return port
    }

    /// The port it listens on.
    var port: Int { Int(base.split(separator: ":").last?.trimmingCharacters(in: .init(charactersIn: "/")) ?? "") ?? 0 }

    /// A control-plane request: a POST with `form`, else a GET; the answer's body.
    @discardableResult
    func control(_ path: String, _ form: String? = nil) async throws -> Data {
        var request = URLRequest(url: try #require(URL(string: base + "__waypost/" + path)))
        if let form {
            request.httpMethod = "POST"
            request.httpBody = Data(form.utf8)
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "content-type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(path): \(String(decoding: data, as: UTF8.self))")
        return data
    }

    func stop() {
        process.interrupt()
        process.waitUntilExit()
    }
}
