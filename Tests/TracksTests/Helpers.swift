import Foundation

@testable import Tracks

/// Reads `text` as a route document named `name`.
func readTrack(_ text: String, name: String = "test.kml") throws(TrackReadError) -> Track {
    try TrackReader().read(data: Data(text.utf8), name: name)
}

/// The error reading `text` produces, or nil when it reads.
func readError(_ data: Data, name: String = "test.kml") -> TrackReadError? {
    do {
        _ = try TrackReader().read(data: data, name: name)
        return nil
    } catch {
        return error
    }
}

func readError(_ text: String, name: String = "test.kml") -> TrackReadError? {
    readError(Data(text.utf8), name: name)
}

/// A KML document around `body` (inside a Document).
func kml(_ body: String, namespace: String = "http://www.opengis.net/kml/2.2") -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <kml xmlns="\(namespace)" xmlns:gx="http://www.google.com/kml/ext/2.2"><Document>
    \(body)
    </Document></kml>
    """
}
