import ArgumentParser
import CheckinEngine
import ConfigFiles
import Foundation
import Scenarios
import Store
import Tracks
import WaypostSupport

/// Exit statuses from BSD's sysexits.h, the CLI's contract (DESIGN.md).
enum SysExit: Int32 {
    case ok = 0
    case expectationFailed = 1
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case software = 70
    case cannotCreate = 73
    case ioError = 74
}

extension SysExit {
    /// The status of a scenario that could not run: 66 a missing file, 69 its emulator or store,
    /// 65 its data; a run over its time budget exits with `overBudget` (`waypost test` counts it a
    /// failed expectation).
    init(_ kind: ScenarioError.Kind, overBudget: SysExit) {
        switch kind {
        case .missing: self = .noInput
        case .data: self = .dataError
        case .unavailable: self = .unavailable
        case .overBudget: self = overBudget
        }
    }
}

/// An error the CLI reports as one line on standard error with a sysexits status.
struct CommandFailure: Error, CustomStringConvertible {
    var status: SysExit
    var description: String

    init(_ status: SysExit, _ description: String) {
        self.status = status
        self.description = description
    }

    init(_ error: TrackReadError) {
        self.init(error.kind == .missing ? .noInput : .dataError, error.description)
    }

    init(_ error: ConfigFileError) {
        self.init(error.kind == .unreadable ? .noInput : .dataError, error.description)
    }
}

extension ParsableCommand {
    /// Runs `body`, turning known failures into one `waypost: error: …` line and an exit status.
    func reportingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as CommandFailure {
            // Messages quote values from files and servers; the line is read on a terminal.
            FileHandle.standardError.write(
                Data("waypost: error: \(DisplayEscaping.escape(failure.description))\n".utf8))
            throw ExitCode(failure.status.rawValue)
        } catch let error as TrackReadError {
            try reportingFailures { throw CommandFailure(error) }
        } catch let error as ConfigFileError {
            try reportingFailures { throw CommandFailure(error) }
        } catch let error as StoreError {
            try reportingFailures { throw CommandFailure(error.inUse ? .unavailable : .ioError, error.description) }
        } catch let error as ExitCode {
            throw error
        } catch {
            try reportingFailures { throw CommandFailure(.software, "internal error: \(error)") }
        }
    }

    /// The same, for async bodies.
    func reportingFailures(_ body: () async throws -> Void) async throws {
        var caught: (any Error)?
        do { try await body() } catch { caught = error }
        if let caught { try reportingFailures { throw caught } }
    }

    /// Reads a configuration file: missing → 66, malformed → 65 with file:line:column.
    /// `-` is standard input, named so in errors, as a route's `-` is.
    func readConfig<T>(_ path: String, _ read: (URL, String) throws(ConfigFileError) -> T) throws -> T {
        do {
            if path == "-" { return try read(URL(fileURLWithPath: "/dev/stdin"), "standard input") }
            return try read(URL(fileURLWithPath: path), path)
        } catch {
            throw CommandFailure(error)
        }
    }
}
