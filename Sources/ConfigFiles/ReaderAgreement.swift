/// The fast readers held to Yams on any text, for `make fuzz`'s fuzz-yaml: ``BlockYAMLReader``
/// and ``JSONReader`` exist for speed, and whatever text either takes must give the tree Yams
/// composes from it — values, styles, tags, positions — so that which reader read a file never
/// shows. Their tests hold them to Yams on chosen and generated text; the fuzzer searches for the
/// text they were not shown.
package enum ReaderAgreement {
    /// Where a fast reader read `text` otherwise than Yams, described; nil when each either
    /// agrees or leaves the text to Yams.
    ///
    /// The block reader must also leave to Yams every text Yams refuses: users see libyaml's
    /// errors. The JSON reader may take well-formed JSON libyaml refuses (a key past libyaml's
    /// 1,024 characters): the file is JSON, and reading it is right.
    package static func disagreement(in text: String) -> String? {
        let yams: Result<ConfigTree, ConfigFileError>
        do throws(ConfigFileError) {
            yams = .success(try YAMLTree.composed(text, file: "fuzz"))
        } catch {
            yams = .failure(error)
        }
        if let block = BlockYAMLReader.read(text, file: "fuzz") {
            switch yams {
            case .failure(let error): return "BlockYAMLReader took text Yams refuses (\(error))"
            case .success(let tree):
                if let difference = difference(block, tree) { return "BlockYAMLReader: \(difference)" }
            }
        }
        if let json = JSONReader.read(text, file: "fuzz"), case .success(let tree) = yams,
            let difference = difference(json, tree)
        {
            return "JSONReader: \(difference)"
        }
        return nil
    }

    /// The first node (or written tag) at which `ours` differs from Yams' tree.
    static func difference(_ ours: ConfigTree, _ yams: ConfigTree) -> String? {
        for (index, (mine, theirs)) in zip(ours.records, yams.records).enumerated() where mine != theirs {
            return "node \(index) is \(mine), Yams' \(theirs)"
        }
        if ours.records.count != yams.records.count {
            return "\(ours.records.count) nodes, Yams' \(yams.records.count)"
        }
        return ours.tags == yams.tags ? nil : "tags \(ours.tags), Yams' \(yams.tags)"
    }
}
