import Foundation
import SocialAPI
import Testing

/// The signer against the published vectors.
struct OAuth1SignerTests {
    @Test func twittersCreatingASignatureExample() throws {
        let signer = OAuth1Signer(
            credentials: OAuth1Credentials(
                consumerKey: "xvz1evFS4wEEPTGEFPHBog", consumerSecret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw",
                token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
                tokenSecret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"))
        let request = OAuth1Request(
            method: "POST",
            url: try #require(URL(string: "https://api.twitter.com/1.1/statuses/update.json?include_entities=true")),
            formParameters: [("status", "Hello Ladies + Gentlemen, a signed OAuth request!")])
        let signed = signer.sign(request, nonce: "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", timestamp: 1_318_622_958)
        #expect(
            signed.baseString
                == "POST&https%3A%2F%2Fapi.twitter.com%2F1.1%2Fstatuses%2Fupdate.json&include_entities%3Dtrue%26oauth_consumer_key%3Dxvz1evFS4wEEPTGEFPHBog%26oauth_nonce%3DkYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1318622958%26oauth_token%3D370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb%26oauth_version%3D1.0%26status%3DHello%2520Ladies%2520%252B%2520Gentlemen%252C%2520a%2520signed%2520OAuth%2520request%2521"
        )
        #expect(signed.signature == "hCtSmYh+iHYCEqBWrE7C7hYmtUk=")
        #expect(signed.authorizationHeader.contains(#"oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D""#))
        #expect(
            signed.authorizationHeader.hasPrefix(#"OAuth oauth_consumer_key="xvz1evFS4wEEPTGEFPHBog", oauth_nonce="#))
        #expect(!signed.authorizationHeader.contains("kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"))
    }

    @Test func oauthCore10AppendixA5() throws {
        let signer = OAuth1Signer(
            credentials: OAuth1Credentials(
                consumerKey: "dpf43f3p2l4k3l03", consumerSecret: "kd94hf93k423kf44", token: "nnch734d00sl2jdk",
                tokenSecret: "pfkkdhi9sl3r4s00"))
        let request = OAuth1Request(
            method: "GET",
            url: try #require(URL(string: "http://photos.example.net/photos?file=vacation.jpg&size=original")))
        let signed = signer.sign(request, nonce: "kllo9940pd9333jh", timestamp: 1_191_242_096)
        #expect(
            signed.baseString
                == "GET&http%3A%2F%2Fphotos.example.net%2Fphotos&file%3Dvacation.jpg%26oauth_consumer_key%3Ddpf43f3p2l4k3l03%26oauth_nonce%3Dkllo9940pd9333jh%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1191242096%26oauth_token%3Dnnch734d00sl2jdk%26oauth_version%3D1.0%26size%3Doriginal"
        )
        #expect(signed.signature == "tR3+Ty81lMeYAr/Fid0kMTYa/WM=")
    }

    @Test func rfc5849Section3411BaseString() throws {
        // RFC 5849 §3.4.1.1: query and form parameters decoded, then re-encoded; realm excluded;
        // duplicate names sorted by value. (This example has no oauth_version.)
        let request = OAuth1Request(
            method: "POST",
            url: try #require(URL(string: "http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b")),
            formParameters: try #require(PercentEncoding.pairs("c2&a3=2+q", plusIsSpace: true)))
        let base = OAuth1Signer.baseString(
            request,
            protocolParameters: [
                "oauth_consumer_key": "9djdj82h48djs9d2", "oauth_token": "kkk9d7dh3k39sjv7",
                "oauth_signature_method": "HMAC-SHA1", "oauth_timestamp": "137131201", "oauth_nonce": "7d8f3e4a",
                "realm": "Example", "oauth_signature": "djosJKDKJSD8743243%2Fjdk33klY%3D",
            ])
        #expect(
            base
                == "POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7"
        )
    }

    @Test func rfc5849Section12Example() throws {
        // RFC 5849 §1.2's final request for the photo: HMAC-SHA1 "MdpQcU8iPSUjWoN/UDMsK2sui9I=".
        // The RFC's example has no oauth_version, so the base string is built without it.
        let request = OAuth1Request(
            method: "GET",
            url: try #require(URL(string: "http://photos.example.net/photos?file=vacation.jpg&size=original")))
        let base = OAuth1Signer.baseString(
            request,
            protocolParameters: [
                "oauth_consumer_key": "dpf43f3p2l4k3l03", "oauth_token": "nnch734d00sl2jdk",
                "oauth_signature_method": "HMAC-SHA1", "oauth_timestamp": "137131202", "oauth_nonce": "chapoH",
            ])
        #expect(
            OAuth1Signer.hmacSHA1(base, consumerSecret: "kd94hf93k423kf44", tokenSecret: "pfkkdhi9sl3r4s00")
                == "MdpQcU8iPSUjWoN/UDMsK2sui9I=")
    }

    /// HMAC's key at the edges of SHA-1's 64-byte block (RFC 2104 §2: a longer key is hashed first,
    /// a shorter one padded), against Python's `hmac.new(key, message, hashlib.sha1)`.
    @Test func keysAroundTheBlockSizeSignAsPythonsHMAC() {
        let base = "GET&http%3A%2F%2Fexample.com%2F&a%3D1"
        for (consumerSecret, tokenSecret, signature) in [
            (String(repeating: "a", count: 31), String(repeating: "b", count: 32), "Izry73Jir3Puhl+XGrR+pPzQtws="),
            (String(repeating: "a", count: 31), String(repeating: "b", count: 33), "ShvU+d/iz+1OmDOWHKQWwMeE20I="),
            ("", "", "kgpkZlzh6d8KzlGiP3xAuEeCk94="),
            (String(repeating: "c", count: 100), "", "DOd/O9is6sTfE6SThvnRhfRMmgc="),
        ] {
            #expect(
                OAuth1Signer.hmacSHA1(base, consumerSecret: consumerSecret, tokenSecret: tokenSecret) == signature,
                "key of \(consumerSecret.count + tokenSecret.count + 1) bytes")
        }
    }

    @Test func percentEncodingIsRFC3986() {
        #expect(PercentEncoding.encode("Ladies + Gentlemen") == "Ladies%20%2B%20Gentlemen")
        #expect(PercentEncoding.encode("An encoded string!") == "An%20encoded%20string%21")
        #expect(PercentEncoding.encode("Dogs, Cats & Mice") == "Dogs%2C%20Cats%20%26%20Mice")
        #expect(PercentEncoding.encode("☃") == "%E2%98%83")
        #expect(PercentEncoding.encode("-._~azAZ09") == "-._~azAZ09")
        #expect(PercentEncoding.decode("%E2%98%83") == "☃")
        #expect(PercentEncoding.decode("%E2%98") == nil)  // not UTF-8
        #expect(PercentEncoding.decode("%G1") == nil)
        #expect(PercentEncoding.decode("a+b", plusIsSpace: true) == "a b")
        #expect(PercentEncoding.decode("a+b") == "a+b")
        #expect(PercentEncoding.decode("plain") == "plain")
    }

    /// A query or form body split as a URL's query is (WHATWG URL, application/x-www-form-urlencoded
    /// parsing: at the bytes `&` and the first `=`, empty pieces skipped), then decoded.
    @Test func queriesSplitAtTheirBytes() throws {
        func pairs(_ query: String, plusIsSpace: Bool = true) throws -> [String] {
            try #require(PercentEncoding.pairs(query, plusIsSpace: plusIsSpace)).map { "\($0.name)=\($0.value)" }
        }
        #expect(try pairs("") == [])
        #expect(try pairs("a=1&&b=x%20y+z&") == ["a=1", "b=x y z"])
        #expect(try pairs("flag&=v&k==2") == ["flag=", "=v", "k==2"])
        #expect(try pairs("k=%E2%98%83&q=a+b", plusIsSpace: false) == ["k=☃", "q=a+b"])
        // A combining mark after `&` makes one character of them, yet the byte still separates.
        #expect(try pairs("a=1&\u{301}b=2") == ["a=1", "\u{301}b=2"])
        #expect(PercentEncoding.pairs("a=%E2%98") == nil)  // not UTF-8
        #expect(PercentEncoding.pairs("a=1&b=%4") == nil)  // a cut escape
        #expect(PercentEncoding.pairs("a%G1=1") == nil)
    }

    @Test func noncesAreFreshHex() {
        let nonces = (0..<1000).map { _ in OAuth1Signer.randomNonce() }
        #expect(Set(nonces).count == nonces.count)
        #expect(nonces.allSatisfy { $0.utf8.count == 32 && $0.allSatisfy(\.isHexDigit) })
        // Lowercase, every digit used: 4,000 digits would all but never miss one.
        #expect(Set(nonces.joined()) == Set("0123456789abcdef"))
        #expect(PercentEncoding.encode(nonces[0]) == nonces[0])
    }
}

/// The protocol parameters outside the header (RFC 5849 §3.5.2, §3.5.3).
struct OAuth1TransportTests {
    static let signed = OAuth1Signer(
        credentials: OAuth1Credentials(
            consumerKey: "dpf43f3p2l4k3l03", consumerSecret: "kd94hf93k423kf44", token: "nnch734d00sl2jdk",
            tokenSecret: "pfkkdhi9sl3r4s00"),
        realm: "Photos"
    ).sign(
        OAuth1Request(method: "GET", url: URL(fileURLWithPath: "/")), nonce: "kllo9940pd9333jh",
        timestamp: 1_191_242_096)

    @Test func protocolParametersFormEncodedSortedWithoutRealm() {
        #expect(
            Self.signed.formEncodedProtocolParameters
                == "oauth_consumer_key=dpf43f3p2l4k3l03&oauth_nonce=kllo9940pd9333jh&oauth_signature="
                + PercentEncoding.encode(Self.signed.signature)
                + "&oauth_signature_method=HMAC-SHA1&oauth_timestamp=1191242096&oauth_token=nnch734d00sl2jdk"
                + "&oauth_version=1.0")
        #expect(Self.signed.authorizationHeader.hasPrefix(#"OAuth realm="Photos", "#))
    }

    @Test func queryKeepsItsParametersAndGainsTheProtocolOnes() throws {
        let bare = try #require(URL(string: "http://photos.example.net/photos"))
        let withQuery = try #require(URL(string: "http://photos.example.net/photos?file=vacation.jpg&size=a+b"))
        let parameters = Self.signed.formEncodedProtocolParameters
        #expect(
            Self.signed.url(addingProtocolParametersTo: bare).absoluteString == bare.absoluteString + "?" + parameters)
        #expect(
            Self.signed.url(addingProtocolParametersTo: withQuery).absoluteString
                == withQuery.absoluteString + "&" + parameters)
        #expect(Self.signed.formBody([("status", "a b+c")]) == "status=a%20b%2Bc&" + parameters)
        #expect(Self.signed.formBody([]) == parameters)
    }

    /// RFC 5849 §3.4.1.3.1: `oauth_signature` is excluded "if present" — wherever it came.
    @Test func signatureInTheParametersIsNotSigned() {
        let base = { (parameters: [(name: String, value: String)]) in
            OAuth1Signer.baseString(
                method: "GET", baseURL: "http://h/x", parameters: parameters, protocolParameters: [:])
        }
        #expect(base([("a", "1"), ("oauth_signature", "sig")]) == base([("a", "1")]))
        #expect(base([("realm", "r")]).contains("realm%3Dr"))
    }

    /// RFC 5849 §3.4.1.2's base string URI read off the text equals `URLComponents`' reading: the
    /// section's own examples, the edges the reader declines (user info, IP literals, odd
    /// ports), and thousands of URLs put together from pieces of each.
    @Test func baseURLReadOffTheTextAsURLComponentsReadsIt() throws {
        // RFC 5849 §3.4.1.2: "http://EXAMPLE.COM:80/r%20v/X?id=123" → "http://example.com/r%20v/X".
        let rfc = try #require(URL(string: "http://EXAMPLE.COM:80/r%20v/X?id=123"))
        #expect(OAuth1Signer.baseURL(rfc) == ("http://example.com/r%20v/X", "id=123"))
        let https = try #require(URL(string: "https://www.example.net:8080/?q=1"))
        #expect(OAuth1Signer.baseURL(https) == ("https://www.example.net:8080/", "q=1"))
        let schemes = ["http", "HTTPS", "https", "Http", "ftp", "x-y+z.1"]
        let authorities = [
            "example.com", "EXAMPLE.com", "127.0.0.1", "a-b.c", "h:80", "h:443", "H:8080", "h:080", "h:0",
            "h:65535", "h:65536", "user@h", "user:pw@h", "[::1]", "[::1]:80", "h%41", "h:", "h.:81",
        ]
        let paths = ["", "/", "/1.1/statuses/update.json", "/r%20v/X", "/a/./b/../c", "/~x_y-z", "/%7E", "/a:b@c"]
        let tails = ["", "?", "?a=1&b=2", "?a=%20+b", "#frag", "?q=1#f", "?q=#", "?a=1?b"]
        var compared = 0
        for scheme in schemes {
            for authority in authorities {
                for path in paths {
                    for tail in tails {
                        guard let url = URL(string: "\(scheme)://\(authority)\(path)\(tail)") else { continue }
                        guard let plain = OAuth1Signer.plainBaseURL(url.absoluteString) else { continue }
                        let components = OAuth1Signer.componentsBaseURL(url)
                        #expect(plain == components, "\(url.absoluteString)")
                        compared += 1
                    }
                }
            }
        }
        #expect(compared > 2_000)
        // User info is no part of the base string URI: the Host header never carries it.
        let withUser = try #require(URL(string: "https://user:pw@API.example.com/1.1/x.json?a=1"))
        #expect(OAuth1Signer.baseURL(withUser) == ("https://api.example.com/1.1/x.json", "a=1"))
        // What the plain reading declines, URLComponents reads.
        for declined in ["http://user@h/x", "http://[::1]/x", "http://h:080/x", "http://h:/x", "http://h%41/x"] {
            #expect(OAuth1Signer.plainBaseURL(declined) == nil, "\(declined)")
        }
    }
}
