import ArgumentParser
import CheckinEngine
import Foundation
import Runs
import Scenarios
import SimulatedTime
import SocialAPI
import SocialEmulator
import Store
import WaypostSupport
import WorldFiles

/// `--db` for a command that records runs (`replay --checkins`): the store is created when missing.
/// Optional, so that a `--db` given where nothing is recorded is refused, not silently unused.
struct StoreOptions: ParsableArguments {
    @Option(
        help: "The SQLite database (created when missing), with --checkins (default: .waypost/waypost.db).",
        completion: .file())
    var db: String?

    func open() throws -> Store { try openStore(db ?? ".waypost/waypost.db") }
}

/// `--db` for the commands that work on what runs stored (audit, report, outbox, history): a
/// missing database is an error (66), never a new empty file.
struct ExistingStoreOptions: ParsableArguments {
    @Option(help: "The SQLite database a replay or test wrote (never created here).", completion: .file())
    var db: String = ".waypost/waypost.db"

    /// Opens the store to change it (`outbox flush`, `history`).
    func open() throws -> Store {
        try checkReadable()
        return try openStore(db)
    }

    /// Opens the store to read it only (`audit`, `report`, `outbox list`): it may be another
    /// user's, or lie in a directory that cannot be written. A store of an older schema is
    /// brought up to date where it can be written, as any command would.
    func openForReading() throws -> Store {
        try checkReadable()
        do {
            return try Store(readingAt: db)
        } catch  where error.needsUpgrade {
            // Said as the reason when it cannot be written either.
            guard let store = try? Store(path: db) else { throw CommandFailure(.cannotCreate, error.description) }
            return store
        } catch {
            throw CommandFailure(.cannotCreate, error.description)
        }
    }

    private func checkReadable() throws {
        guard FileManager.default.fileExists(atPath: db) else {
            throw CommandFailure(.noInput, "\(db): no such database")
        }
        // An input that cannot be read, as an unreadable track is (SQLite said only "unable to
        // open database file", exit 73).
        guard FileManager.default.isReadableFile(atPath: db) else {
            throw CommandFailure(.noInput, "\(db): cannot be opened for reading (permission denied)")
        }
    }

    /// The database, opened for reading, and the run named `name` (the latest when nil): a
    /// missing run is 66 too.
    func openRun(named name: String?) throws -> (Store, RunRecord) {
        let store = try openForReading()
        guard let record = try store.run(named: name) else {
            throw CommandFailure(.noInput, name.map { "no run named '\($0)' in \(db)" } ?? "\(db) has no runs yet")
        }
        return (store, record)
    }
}

/// Opens a store, a refusal (not a Waypost store, cannot be created) being 73.
func openStore(_ path: String) throws -> Store {
    do {
        return try Store(path: path)
    } catch {
        throw CommandFailure(.cannotCreate, error.description)
    }
}

/// Where posts go: the in-process emulator (the default), or any compatible servers.
struct NetworkOptions: ParsableArguments {
    @Option(
        help:
            "Twitter API base URL ending in the version, e.g. https://api.example.com/1.1/ (default: in-process emulator)."
    )
    var twitterBaseURL: String?

    @Option(help: "Facebook Graph base URL (default: in-process emulator).")
    var facebookBaseURL: String?

    @Option(
        name: .customLong("twitter-api"),
        help: ArgumentHelp(
            "Post tweets through Twitter v1.1 (statuses/update, the default) or X API v2 (POST /2/tweets: a place id, never coordinates); with --twitter-base-url, v2 is its sibling ../2/.",
            valueName: "v1.1|v2"))
    var chosenTwitterAPI: TwitterAPIVersion?

    var twitterAPI: TwitterAPIVersion { chosenTwitterAPI ?? .v1_1 }

    @Option(
        help: "Credentials file (YAML/JSON, mode 0600); otherwise WAYPOST_* environment variables.",
        completion: .file(extensions: configExtensions))
    var credentials: String?

    @Option(
        help:
            "Places for the in-process emulator: a directory with twitter-places.json and facebook-pages.json (default: the built-in places, as in fixtures/places).",
        completion: .directory
    )
    var fixtures: String?

    @Option(
        name: .customLong("max-wait"), parsing: .unconditional,
        help: "Against real servers: longest wait for a retry before leaving posts queued, seconds (default: 30).")
    var chosenMaxWait: Double?

    var maxWait: Double { chosenMaxWait ?? 30 }

    var external: Bool { twitterBaseURL != nil || facebookBaseURL != nil }

    func validate() throws {
        // Waits are slept in nanoseconds: a day keeps every one far inside what they can count.
        try OptionRange.check("--max-wait", maxWait, 0...86_400, " seconds")
        // Each is for one side only; given for the other, it would go unread (a dry run too).
        if credentials != nil && !external {
            throw ValidationError(
                "--credentials is for --twitter-base-url or --facebook-base-url; the in-process emulator has its own accounts"
            )
        }
        if fixtures != nil && external {
            throw ValidationError(
                "--fixtures is for the in-process emulator; --twitter-base-url and --facebook-base-url post elsewhere")
        }
    }

    /// The options that say where posts go, as given: each needs something to post.
    var given: [String] {
        [
            ("--twitter-base-url", twitterBaseURL != nil), ("--facebook-base-url", facebookBaseURL != nil),
            ("--credentials", credentials != nil), ("--fixtures", fixtures != nil),
            ("--twitter-api", chosenTwitterAPI != nil), ("--max-wait", chosenMaxWait != nil),
        ].filter(\.1).map(\.0)
    }

    /// The flush that sends what these options queued: posts go only to the servers they were
    /// queued for, so the base URLs go with it.
    var flushCommand: String {
        var words = ["waypost", "outbox", "flush"]
        for network in Network.allCases {
            if let url = baseURL(for: network) { words += [Self.baseURLFlag(for: network), url] }
        }
        return words.map { DisplayEscaping.escape($0) }.joined(separator: " ")
    }

    /// The base URL given for `network`'s server, if any.
    func baseURL(for network: Network) -> String? {
        network == .twitter ? twitterBaseURL : facebookBaseURL
    }

    /// The option that names `network`'s server.
    static func baseURLFlag(for network: Network) -> String {
        network == .twitter ? "--twitter-base-url" : "--facebook-base-url"
    }

    /// Refuses, before anything is sent, a base URL given without the credentials its server
    /// needs: every request would be refused (401) for want of them.
    func requireCredentials(_ credentials: Credentials) throws {
        let source = self.credentials.map { "in \($0)" } ?? "in the environment"
        // A file replaces the environment for both networks: a variable set beside it is not read,
        // so the message names the file (it named the variable, set already: a regression hunt).
        let file = self.credentials.map { " (\($0) has none; with --credentials the WAYPOST_* variables are not read)" }
        if twitterBaseURL != nil {
            guard let oauth = credentials.twitter else {
                throw CommandFailure(
                    .usage,
                    "--twitter-base-url needs Twitter credentials: "
                        + (file.map { "twitter: consumerKey and consumerSecret in the credentials file\($0)" }
                            ?? "WAYPOST_TWITTER_CONSUMER_KEY and WAYPOST_TWITTER_CONSUMER_SECRET (with "
                            + "WAYPOST_TWITTER_TOKEN and _TOKEN_SECRET), or --credentials"))
            }
            if (oauth.token == nil) != (oauth.tokenSecret == nil) {
                throw CommandFailure(.usage, "the Twitter token and its secret go together; \(source) one is missing")
            }
        }
        if facebookBaseURL != nil && credentials.facebookAccessToken == nil {
            throw CommandFailure(
                .usage,
                "--facebook-base-url needs a Graph access token: "
                    + (file.map { "facebook: accessToken in the credentials file\($0)" }
                        ?? "WAYPOST_FACEBOOK_ACCESS_TOKEN, or --credentials"))
        }
    }

    /// Refuses, before anything is sent or stored, a base URL given for one network while `what`
    /// also posts to the other: with no server for it, those posts failed for good ("no Facebook
    /// server to post to"), exit 0 (a black-box hunt). The in-process emulator serves a run given
    /// neither base URL.
    func requireServer(for network: Network, _ what: String) throws {
        guard external, baseURL(for: network) == nil else { return }
        throw CommandFailure(
            .usage,
            "\(what) to \(network == .twitter ? "Twitter" : "Facebook"), and no \(Self.baseURLFlag(for: network)) "
                + "was given: give it too (or neither base URL, for the in-process emulator)")
    }

    /// The credentials for other servers (nil for the in-process emulator): the `--credentials`
    /// file, or the environment. Read before a command prints anything, so a bad file leaves no output.
    func serverCredentials() throws -> Credentials? {
        external ? try fileOrEnvironmentCredentials() : nil
    }

    /// The `--credentials` file, or the WAYPOST_* environment variables.
    private func fileOrEnvironmentCredentials() throws -> Credentials {
        guard let file = credentials else { return Credentials.fromEnvironment(ProcessInfo.processInfo.environment) }
        do {
            return try Credentials.read(contentsOf: URL(fileURLWithPath: file), displayName: file)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// Where a run's posts go: the in-process emulator, or the servers the base URLs name;
    /// `credentials` as ``serverCredentials()`` read them.
    func destination(credentials: Credentials?, seed: UInt64) throws -> PostDestination {
        guard external else {
            var setup = EmulatorSetup()
            setup.twitterAPI = twitterAPI
            return .simulated(EmulatorNetworks(fixtures: try loadFixtures(fixtures), setup: setup, seed: seed))
        }
        let clock = WallClock()
        return .servers(
            try serverClients(credentials: credentials, clock: clock), clock: clock, maxWait: .seconds(maxWait))
    }

    /// The clients, and the in-process emulator when no base URL was given (stop it when done);
    /// `credentials` as ``serverCredentials()`` read them.
    func connect(clock: any EpochClock, seed: UInt64, credentials: Credentials?) async throws
        -> (SocialClients, EmulatorServer.Running?)
    {
        guard external else {
            let loaded = try loadFixtures(fixtures)
            do {
                let emulator = try await InProcessEmulator.start(
                    fixtures: loaded, seed: seed, twitterAPI: twitterAPI, clock: clock)
                return (emulator.clients, emulator.running)
            } catch {
                throw CommandFailure(.unavailable, "cannot start the in-process emulator: \(error)")
            }
        }
        return (try serverClients(credentials: credentials, clock: clock), nil)
    }

    /// Clients for the servers the base URLs name, signed on `clock`.
    private func serverClients(credentials: Credentials?, clock: any EpochClock) throws -> SocialClients {
        let credentials = try credentials ?? fileOrEnvironmentCredentials()
        func url(_ text: String?, _ flag: String) throws -> URL? {
            guard let text else { return nil }
            // Schemes are case-insensitive (RFC 3986 §3.1): HTTP://… is http://…, written so.
            guard var parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(),
                scheme == "http" || scheme == "https", parts.host != nil
            else {
                throw CommandFailure(.usage, "\(flag) '\(text)' is not an http(s) URL")
            }
            parts.scheme = scheme
            // A base URL names a folder: `…/1.1` is `…/1.1/`. Without the slash, every path was
            // resolved beside it, `1.1` dropped (RFC 3986 §5.2.3), while the outbox showed it kept.
            if !parts.path.hasSuffix("/") { parts.path += "/" }
            guard let url = parts.url else { throw CommandFailure(.usage, "\(flag) '\(text)' is not an http(s) URL") }
            return url
        }
        let (twitter, facebook) = (
            try url(twitterBaseURL, "--twitter-base-url"), try url(facebookBaseURL, "--facebook-base-url")
        )
        try requireCredentials(credentials)
        // X API v2 lives beside v1.1: `…/1.1/` → `…/2/`, signed with the same OAuth 1.0a user context.
        let x =
            twitterAPI == .v2
            ? zip2(twitter.flatMap { URL(string: "../2/", relativeTo: $0)?.absoluteURL }, credentials.twitter).map {
                XClient(baseURL: $0, authorization: .oauth1(OAuth1Signer(credentials: $1)), clock: clock)
            } : nil
        return SocialClients(
            twitter: zip2(twitter, credentials.twitter).map {
                TwitterClient(baseURL: $0, credentials: $1, clock: clock)
            },
            facebook: zip2(facebook, credentials.facebookAccessToken).map {
                FacebookClient(baseURL: $0, accessToken: $1)
            }, x: x, twitterAPI: twitterAPI)
    }
}

/// Emulator places from a folder, or the built-in ones when none is given: missing → 66,
/// unreadable → 65.
func loadFixtures(_ path: String?) throws -> EmulatorFixtures {
    do {
        guard let path else { return try EmulatorFixtures.builtIn() }
        return try EmulatorFixtures.load(from: URL(fileURLWithPath: path))
    } catch {
        throw CommandFailure(error.isMissing ? .noInput : .dataError, "\(error)")
    }
}

private func zip2<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}

extension AuditReport.Format: ExpressibleByArgument {}
extension TwitterAPIVersion: ExpressibleByArgument {}
