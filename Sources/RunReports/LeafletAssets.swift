import Foundation

/// Leaflet and Leaflet.markercluster, read from the system so the HTML map can inline them: one
/// file that works offline, with nothing vendored in this repository. Debian and Ubuntu ship both
/// as `libjs-leaflet` and `libjs-leaflet.markercluster` (`make deps` installs them), under
/// `/usr/share/javascript/leaflet/`; `WAYPOST_LEAFLET_DIR` names another folder holding the same
/// files (`leaflet.js`, `leaflet.css`, `leaflet.markercluster.js`, `MarkerCluster.css`,
/// `MarkerCluster.Default.css`; `leaflet.min.js` and `leaflet.markercluster.min.js` are preferred
/// where they are there).
public struct LeafletAssets: Sendable, Equatable {
    public var leafletJS: String
    public var leafletCSS: String
    public var clusterJS: String
    public var clusterCSS: String

    /// The folders searched, in order, when `WAYPOST_LEAFLET_DIR` is not set.
    public static let standardDirectories = [
        "/usr/share/javascript/leaflet", "/usr/local/share/javascript/leaflet",
        "/opt/homebrew/share/javascript/leaflet",
    ]

    /// The environment variable naming a folder with Leaflet's files.
    public static let environmentVariable = "WAYPOST_LEAFLET_DIR"

    /// One line for a user without Leaflet: how to get the map.
    public static let installHint =
        "the HTML report is the static SVG page: Leaflet was not found (install Debian's libjs-leaflet and "
        + "libjs-leaflet.markercluster, e.g. `make deps`, or set \(environmentVariable) to a folder with "
        + "leaflet.js, leaflet.css, leaflet.markercluster.js, MarkerCluster.css and MarkerCluster.Default.css)"

    static let files = [
        "leaflet.js", "leaflet.css", "leaflet.markercluster.js", "MarkerCluster.css", "MarkerCluster.Default.css",
    ]

    public init(leafletJS: String, leafletCSS: String, clusterJS: String, clusterCSS: String) {
        self.leafletJS = leafletJS
        self.leafletCSS = leafletCSS
        self.clusterJS = clusterJS
        self.clusterCSS = clusterCSS
    }

    /// The assets from `WAYPOST_LEAFLET_DIR` when set (and only there: a named folder that lacks
    /// them is not silently replaced by another), else from the first standard folder that has
    /// them all; nil when none does.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> LeafletAssets?
    {
        if let directory = environment[environmentVariable], !directory.isEmpty {
            return load(from: URL(fileURLWithPath: directory))
        }
        for directory in standardDirectories {
            if let assets = load(from: URL(fileURLWithPath: directory)) { return assets }
        }
        return nil
    }

    /// The assets in `directory`, nil when a file is missing or unreadable.
    public static func load(from directory: URL) -> LeafletAssets? {
        var texts: [String] = []
        for name in files {
            // The minified builds where they are there (Debian ships both): a third of the size,
            // and no tabs or carriage returns in the page.
            let minified = name.hasSuffix(".js") ? name.dropLast(3) + ".min.js" : nil
            guard
                let data = minified.flatMap({ try? Data(contentsOf: directory.appendingPathComponent(String($0))) })
                    ?? (try? Data(contentsOf: directory.appendingPathComponent(name)))
            else { return nil }
            // Line ends as the rest of the page has them: a lone CR or CRLF ends a line in JavaScript
            // and CSS just as LF does.
            texts.append(
                String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
                    .replacingOccurrences(of: "\r", with: "\n"))
        }
        // The layer control's icon is an image beside leaflet.css: inlined as data, so the
        // report needs no folder next to it.
        let css = inlineImages(texts[1], relativeTo: directory)
        return LeafletAssets(
            leafletJS: texts[0], leafletCSS: css, clusterJS: texts[2], clusterCSS: texts[3] + "\n" + texts[4])
    }

    /// `url(images/x.png)` → a `data:` URL where the image is there; left as is otherwise.
    static func inlineImages(_ css: String, relativeTo directory: URL) -> String {
        var out = css
        for name in ["layers.png", "layers-2x.png", "marker-icon.png", "marker-icon-2x.png", "marker-shadow.png"] {
            guard let data = try? Data(contentsOf: directory.appendingPathComponent("images/\(name)")) else {
                continue
            }
            out = out.replacingOccurrences(
                of: "url(images/\(name))", with: "url(data:image/png;base64,\(data.base64EncodedString()))")
        }
        return out
    }
}

/// An optional base map under the run: a tile URL template and the attribution its provider
/// requires. OpenStreetMap's own tiles come with a usage policy
/// (https://operations.osmfoundation.org/policies/tiles/): heavy use needs another provider.
public struct TileLayer: Sendable, Equatable {
    public var urlTemplate: String
    public var attribution: String

    public init(urlTemplate: String, attribution: String) {
        self.urlTemplate = urlTemplate
        self.attribution = attribution
    }

    /// Why `template` is not a tile URL Leaflet can use, or nil when it is: http(s), with
    /// `{z}`, `{x}` and `{y}`.
    public static func problem(with template: String) -> String? {
        guard template.hasPrefix("https://") || template.hasPrefix("http://") else {
            return "is not an http(s) URL"
        }
        let missing = ["{z}", "{x}", "{y}"].filter { !template.contains($0) }
        return missing.isEmpty
            ? nil : "lacks \(missing.joined(separator: ", ")) (e.g. https://tile.example/{z}/{x}/{y}.png)"
    }
}
