import ConfigFiles
import FuzzDriver

// The configuration files' fast readers against Yams: the input is a file's text. Whatever the
// block YAML reader or the JSON reader takes must give the tree Yams composes from it, node for
// node (`ReaderAgreement`); a difference, a crash or a hang is a finding.
runFuzzer { bytes, count in
    let text = String(decoding: input(bytes, count), as: UTF8.self)
    if let disagreement = ReaderAgreement.disagreement(in: text) {
        fatalError("\(disagreement)\n--- text ---\n\(text)")
    }
    return 0
}
