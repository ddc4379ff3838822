internal import Yams

/// YAML composed by Yams (libyaml) and copied into a ``ConfigTree`` in one walk: values, styles,
/// tags as written and positions, so that what a reader sees does not depend on which of the
/// two readers (this or ``JSONReader``) read the file.
enum YAMLTree {
    /// The tree of `text`; refuses anchors and aliases before Yams could expand them, and gives
    /// libyaml's syntax errors at their position. Text in the shape most configuration files
    /// have is read by ``BlockYAMLReader`` into the same tree, without Yams' nodes.
    static func read(_ text: String, file: String) throws(ConfigFileError) -> ConfigTree {
        if let (line, column) = ConfigText.firstAnchorOrAlias(in: text) {
            throw ConfigFileError(
                file: file, line: line, column: column,
                message: "YAML anchors and aliases (&name, *name) are not accepted")
        }
        if let tree = BlockYAMLReader.read(text, file: file) { return tree }
        return try composed(text, file: file)
    }

    /// The tree of `text` as Yams composes it, whatever its shape; anchors are refused by the
    /// caller.
    static func composed(_ text: String, file: String) throws(ConfigFileError) -> ConfigTree {
        let root: Node?
        do {
            // No implicit tag resolution: a config value's type is decided by the accessor that
            // reads it (number(), bool(), string()), which never consult resolved tags. Yams'
            // default resolver runs regular expressions on every key each time keys are hashed or
            // compared (duplicate checks, lookups): 81 % of reading 100,000 regions.
            root = try Yams.compose(yaml: text, .basic)
        } catch {
            throw ConfigText.syntaxError(error, file: file, text: text)
        }
        guard let root else {
            throw ConfigFileError(file: file, line: 1, column: 1, message: ConfigFileError.emptyFile)
        }
        // A regions file is about a node per 9 bytes; reserved, not touched, beyond what is used.
        var builder = ConfigTree.Builder(capacity: text.utf8.count / 8)
        try add(root, to: &builder, file: file)
        return builder.tree(file: file)
    }

    private static func add(_ node: Node, to builder: inout ConfigTree.Builder, file: String) throws(ConfigFileError) {
        // Positions are read from each case's payload: `Node.mark` copies the node to find it.
        switch node {
        case .scalar(let scalar):
            let (line, column) = (scalar.mark?.line ?? 0, scalar.mark?.column ?? 0)
            // The tag as composed, before resolution (which would make every plain scalar `!!str`
            // under the basic resolver): what Yams' own bool and number readings look at.
            let written = scalar.tag.rawValue
            let tag: ConfigTree.TagKind =
                written == Tag.Name.implicit.rawValue
                ? .implicit : written == Tag.Name.str.rawValue ? .string : .written
            if tag == .written { builder.tags[builder.records.count] = written }
            builder.scalar(scalar.string, line: line, column: column, style: style(scalar.style), tag: tag)
        case .mapping(let mapping):
            let index = builder.open(.mapping, line: mapping.mark?.line ?? 0, column: mapping.mark?.column ?? 0)
            for (key, value) in mapping {
                try add(key, to: &builder, file: file)
                try add(value, to: &builder, file: file)
            }
            builder.close(index)
        case .sequence(let sequence):
            let index = builder.open(.sequence, line: sequence.mark?.line ?? 0, column: sequence.mark?.column ?? 0)
            for item in sequence { try add(item, to: &builder, file: file) }
            builder.close(index)
        case .alias(let alias):
            // Refused by the scan before composing; should one get past it, it is refused here.
            throw ConfigFileError(
                file: file, line: alias.mark?.line ?? 0, column: alias.mark?.column ?? 0,
                message: "YAML anchors and aliases (&name, *name) are not accepted")
        }
    }

    private static func style(_ style: Node.Scalar.Style) -> ConfigTree.Style {
        switch style {
        case .any: .any
        case .plain: .plain
        case .singleQuoted: .singleQuoted
        case .doubleQuoted: .doubleQuoted
        case .literal: .literal
        case .folded: .folded
        }
    }
}

extension ConfigTree {
    /// The scalar at `index` as a Yams scalar, for the few readings that keep Yams' rules exactly
    /// (`yes` is true, `0x1A` is 26, a quoted `true` is a string): built on demand, not per node.
    func yamsScalar(at index: Int) -> Node.Scalar {
        let record = records[index]
        let name: Yams.Tag.Name =
            switch record.tag {
            case .implicit: .implicit
            case .string: .str
            case .written: Yams.Tag.Name(rawValue: tags[index] ?? "")
            }
        // An empty constructor: these readings use none, and Yams' default builds its tables anew.
        let tag = Yams.Tag(name, .basic, Constructor([:], [:], [:]))
        let style: Node.Scalar.Style =
            switch record.style {
            case .any: .any
            case .plain: .plain
            case .singleQuoted: .singleQuoted
            case .doubleQuoted: .doubleQuoted
            case .literal: .literal
            case .folded: .folded
            }
        return Node.Scalar(record.text, tag, style, nil)
    }
}
