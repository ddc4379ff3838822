import CheckinEngine
import ConfigFiles
import Foundation
import SocialAPI

/// Reading ``CheckinEngine/Credentials`` from a file (the format is on the type): the engine takes
/// values; files are read here, with the other world files.
extension Credentials {
    /// Reads a credentials file, refusing one that group or others may read or write.
    public static func read(contentsOf url: URL, displayName: String? = nil) throws(ConfigFileError) -> Credentials {
        let name = displayName ?? url.path
        // The mode of the file read, through any links: a Kubernetes secret volume and a
        // dotfiles checkout give links, whose own mode (lstat, as `attributesOfItem` reads it)
        // is 777 and cannot be changed.
        var status = stat()
        guard stat(url.path, &status) == 0 else {
            throw ConfigFileError(
                .unreadable, file: name,
                message: "cannot read the credentials file (\(String(cString: strerror(errno))))")
        }
        let mode = Int(status.st_mode)
        guard mode & 0o077 == 0 else {
            throw ConfigFileError(
                file: name,
                message: String(format: "mode %o lets others read the credentials; chmod 600 it", mode & 0o777))
        }
        // Every error below says where and what is wrong, never what the file holds: a value
        // out of place, a mistyped key or YAML's own message could be a secret.
        func withheld<T>(_ message: String, _ body: () throws(ConfigFileError) -> T) throws(ConfigFileError) -> T {
            do {
                return try body()
            } catch {
                throw ConfigFileError(file: name, line: error.line, column: error.column, message: message)
            }
        }
        let root: ConfigNode
        do {
            root = try ConfigNode.load(contentsOf: url, displayName: name)
        } catch  where error.message == ConfigFileError.emptyFile {
            // Nothing in it to hide.
            throw error
        } catch {
            throw ConfigFileError(
                file: name, line: error.line, column: error.column,
                message: "not YAML or JSON (the text is not shown: it may hold secrets)")
        }
        let fields = try withheld("expected a mapping with the keys twitter and facebook only") {
            () throws(ConfigFileError) in try root.mapping(allowing: ["twitter", "facebook"])
        }
        var credentials = Credentials(twitter: nil, facebookAccessToken: nil)
        if let twitter = fields["twitter"] {
            let t = try withheld("twitter: expected a mapping with consumerKey, consumerSecret, token, tokenSecret") {
                () throws(ConfigFileError) in
                try twitter.mapping(allowing: ["consumerKey", "consumerSecret", "token", "tokenSecret"])
            }
            guard let key = t["consumerKey"], let secret = t["consumerSecret"] else {
                throw twitter.failure("twitter needs consumerKey and consumerSecret")
            }
            credentials.twitter = try withheld("twitter: every value must be a non-empty string") {
                () throws(ConfigFileError) in
                OAuth1Credentials(
                    consumerKey: try key.string(), consumerSecret: try secret.string(),
                    token: try t["token"]?.string(), tokenSecret: try t["tokenSecret"]?.string())
            }
        }
        if let facebook = fields["facebook"] {
            let f = try withheld("facebook: expected a mapping with accessToken only") { () throws(ConfigFileError) in
                try facebook.mapping(allowing: ["accessToken"])
            }
            guard let token = f["accessToken"] else { throw facebook.failure("facebook needs accessToken") }
            credentials.facebookAccessToken = try withheld("facebook: accessToken must be a non-empty string") {
                () throws(ConfigFileError) in try token.string()
            }
        }
        return credentials
    }
}
