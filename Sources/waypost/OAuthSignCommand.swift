import ArgumentParser
import Foundation
import SocialAPI
import WaypostSupport

extension OAuth1Transport: ExpressibleByArgument {}

/// `waypost oauth-sign`: shows how a request is signed, like twurl's debugging output.
struct OAuthSign: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oauth-sign",
        abstract:
            "Print the OAuth 1.0a base string, signature and the signed Authorization header, URL or body of a request.",
        discussion: """
            --param values go in the form body for POST and PUT, in the query otherwise (printed \
            as the "URL: …" to send); oauth_callback and oauth_verifier, the protocol parameters \
            of a token request (RFC 5849 §2.1, §2.3), go with the other oauth_* ones. Secrets \
            are used for signing and never printed. Without --nonce and --timestamp a fresh random \
            nonce and the current time are used.

            --transport says where the signed request carries the oauth_* parameters (RFC 5849 \
            §3.5): in the Authorization header (the default; printed as "Authorization: …"), in \
            the query string (printed as the signed "URL: …") or in the form body (POST or PUT \
            only; printed as "body: …", form-encoded). The signature is the same in all three. \
            A request with a form body (POST or PUT with --param) has it printed as "body: …" \
            whatever the transport: send it as application/x-www-form-urlencoded, byte for byte.

            The consumer key and secret, token and token secret may come from the environment \
            instead (WAYPOST_TWITTER_CONSUMER_KEY, WAYPOST_TWITTER_CONSUMER_SECRET, \
            WAYPOST_TWITTER_TOKEN, WAYPOST_TWITTER_TOKEN_SECRET, as replay reads them): every user \
            of the machine can read a command line (ps), not another user's environment. An \
            option wins over its variable.

            The example is Twitter's "Creating a signature" walk-through, whose signature it \
            prints (include_entities was in the query there, and signs the same in the body).

            Example:
              waypost oauth-sign --method POST \\
                --url https://api.twitter.com/1.1/statuses/update.json \\
                --param include_entities=true \\
                --param 'status=Hello Ladies + Gentlemen, a signed OAuth request!' \\
                --consumer-key xvz1evFS4wEEPTGEFPHBog \\
                --consumer-secret kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw \\
                --token 370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb \\
                --token-secret LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE \\
                --nonce kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg --timestamp 1318622958

            A request signed into the query string, as Python Twitter Tools and \
            Net::Twitter::Lite send a GET:
              waypost oauth-sign --transport query \\
                --url http://127.0.0.1:8080/1.1/account/verify_credentials.json \\
                --consumer-key waypost-demo-consumer \\
                --consumer-secret waypost-demo-consumer-secret \\
                --token 1001-waypost-demo-token --token-secret waypost-demo-token-secret
            """
    )

    @Option(help: "HTTP method.")
    var method: String = "GET"

    @Option(help: "The request URL, with its query.")
    var url: String

    @Option(name: .customLong("param"), help: "A request parameter name=value (repeatable).")
    var parameters: [String] = []

    @Option(help: "Or WAYPOST_TWITTER_CONSUMER_KEY.") var consumerKey: String?
    @Option(help: "Or WAYPOST_TWITTER_CONSUMER_SECRET (a command line is visible to every user).")
    var consumerSecret: String?
    @Option(help: "Or WAYPOST_TWITTER_TOKEN.") var token: String?
    @Option(help: "Or WAYPOST_TWITTER_TOKEN_SECRET (a command line is visible to every user).")
    var tokenSecret: String?
    @Option var nonce: String?
    @Option(parsing: .unconditional) var timestamp: Int?

    @Option(help: "Where the oauth_* parameters go: header, query or body (RFC 5849 §3.5).")
    var transport: OAuth1Transport = .header

    /// Methods whose request carries the form body (`--param` values, and with `--transport
    /// body` the protocol parameters, which RFC 5849 §3.5.2 allows only in a form body).
    static let bodyMethods: Set<String> = ["POST", "PUT"]

    /// The protocol parameters a flow's step adds, which `--param` may give (RFC 5849 §2.1, §2.3);
    /// every other `oauth_*` is oauth-sign's own.
    static let flowParameters: Set<String> = ["oauth_callback", "oauth_verifier"]

    /// `--param` values apart: the request's own, and the protocol parameters of the flow.
    func splitParameters() throws -> (request: [(name: String, value: String)], flow: [String: String]) {
        let all = try parsedParameters()
        let flow = all.filter { Self.flowParameters.contains($0.name) }
        return (all.filter { !Self.flowParameters.contains($0.name) }, Dictionary(flow, uniquingKeysWith: { $1 }))
    }

    func parsedParameters() throws -> [(name: String, value: String)] {
        try parameters.map { text in
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw ValidationError("--param '\(text)' is not name=value")
            }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]))
        }
    }

    /// The credentials: each option, or else its environment variable.
    func credentials(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> OAuth1Credentials
    {
        func value(_ option: String?, _ variable: String) -> String? { option ?? environment[variable] }
        // Every request names its consumer (RFC 5849 §3.1, oauth_consumer_key REQUIRED): an
        // empty one, as `export WAYPOST_TWITTER_CONSUMER_KEY=` from an unset variable leaves
        // it, was signed as given.
        guard let key = value(consumerKey, "WAYPOST_TWITTER_CONSUMER_KEY"), !key.isEmpty else {
            throw ValidationError("give --consumer-key or set WAYPOST_TWITTER_CONSUMER_KEY (not empty)")
        }
        guard let secret = value(consumerSecret, "WAYPOST_TWITTER_CONSUMER_SECRET") else {
            throw ValidationError("give --consumer-secret or set WAYPOST_TWITTER_CONSUMER_SECRET")
        }
        let token = value(token, "WAYPOST_TWITTER_TOKEN")
        let tokenSecret = value(tokenSecret, "WAYPOST_TWITTER_TOKEN_SECRET")
        if (token == nil) != (tokenSecret == nil) {
            throw ValidationError(
                "the token and its secret go together (--token and --token-secret, or WAYPOST_TWITTER_TOKEN and "
                    + "WAYPOST_TWITTER_TOKEN_SECRET)")
        }
        return OAuth1Credentials(consumerKey: key, consumerSecret: secret, token: token, tokenSecret: tokenSecret)
    }

    func validate() throws {
        // A scheme is case-insensitive (RFC 3986 §3.1): `HTTPS://` is https.
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased()),
            parsed.host != nil
        else { throw ValidationError("--url '\(url)' is not an http(s) URL") }
        // The base string names the host as the Host header carries it (RFC 5849 §3.4.1.2): user
        // info was signed, and printed, and no server computes that signature (a black-box hunt).
        guard parsed.user == nil && parsed.password == nil else {
            throw ValidationError(
                "--url has user info (user:password@): no request carries it to be signed; leave it out")
        }
        // A method is a token (RFC 9110 §9.1, §5.6.2): `''` or `G ET` was signed, and no request
        // can carry it.
        let tchar = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~").union(.init(charactersIn: "0"..."9"))
            .union(.init(charactersIn: "a"..."z")).union(.init(charactersIn: "A"..."Z"))
        guard !method.isEmpty, method.unicodeScalars.allSatisfy(tchar.contains) else {
            throw ValidationError(
                "--method '\(DisplayEscaping.escape(method))' is not an HTTP method (a token such as GET or POST)")
        }
        if let timestamp, timestamp <= 0 {
            throw ValidationError("--timestamp \(timestamp) is not a positive integer (RFC 5849 §3.3)")
        }
        _ = try credentials()
        // Protocol parameters go together in one place (RFC 5849 §3.5): an oauth_callback given
        // as --param was signed but sent in the body beside a header with the others, which
        // oauthlib's server refuses; and oauth-sign's own (nonce, timestamp, …) given again
        // were signed twice.
        for (name, _) in try parsedParameters() where name.hasPrefix("oauth_") && !Self.flowParameters.contains(name) {
            throw ValidationError(
                "--param \(name): oauth-sign sets it (--nonce, --timestamp and the credentials); only "
                    + "oauth_callback and oauth_verifier are given as --param")
        }
        let query = URLComponents(string: url)?.queryItems ?? []
        if let own = query.first(where: { $0.name.hasPrefix("oauth_") && $0.name != "oauth_signature" }) {
            throw ValidationError(
                "--url carries \(own.name): oauth-sign adds the protocol parameters (--param for oauth_callback "
                    + "and oauth_verifier); leave it out of the URL")
        }
        if transport == .body && !Self.bodyMethods.contains(method.uppercased()) {
            throw ValidationError("--transport body needs a method with a form body: --method POST or PUT")
        }
    }

    func run() throws {
        let verb = method.uppercased()
        var target = URL(string: url) ?? URL(fileURLWithPath: "/")
        var form: [(name: String, value: String)] = []
        let (parameters, flow) = try splitParameters()
        if Self.bodyMethods.contains(verb) {
            form = parameters
        } else if !parameters.isEmpty, var components = URLComponents(url: target, resolvingAgainstBaseURL: false) {
            let extra = parameters.map { PercentEncoding.encode($0.name) + "=" + PercentEncoding.encode($0.value) }
            components.percentEncodedQuery = ([components.percentEncodedQuery].compactMap { $0 } + extra).joined(
                separator: "&")
            target = components.url ?? target
        }
        let signer = OAuth1Signer(credentials: try credentials())
        let signed = signer.sign(
            OAuth1Request(method: verb, url: target, formParameters: form),
            nonce: nonce ?? Self.randomNonce(), timestamp: timestamp ?? Int(Date().timeIntervalSince1970),
            extra: flow)
        print("signature base string: \(signed.baseString)")
        print("signature: \(signed.signature)")
        switch transport {
        case .header:
            print("Authorization: \(signed.authorizationHeader)")
            // The --param values went into the query: the URL to send is that one (a black-box
            // hunt: without it, the printed header went with the URL as given, and failed).
            if !parameters.isEmpty && form.isEmpty { print("URL: \(target.absoluteString)") }
            if !form.isEmpty { print("body: \(PercentEncoding.form(form))") }
        case .query:
            print("URL: \(signed.url(addingProtocolParametersTo: target).absoluteString)")
            if !form.isEmpty { print("body: \(PercentEncoding.form(form))") }
        case .body:
            print("URL: \(target.absoluteString)")
            print("body: \(signed.formBody(form))")
        }
    }

    /// 32 random alphanumerics, as Twitter's examples use.
    static func randomNonce() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<32).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }
}
