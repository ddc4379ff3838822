import ArgumentParser

/// A single-valued option given twice: argument-parser keeps the last, so `--regions a.yaml
/// --regions b.yaml` monitored b's regions alone, silently (a black-box hunt). One usage error
/// names it; options that take several values (`--param`, `--radius`) are not questioned.
enum RepeatedOption {
    /// The first single-valued long option of `command` (its option groups' included) that
    /// `arguments` give more than once, or nil.
    static func first(in command: any ParsableArguments, _ arguments: [String]) -> String? {
        let single = Set(names(of: command))
        var seen: Set<String> = []
        for argument in arguments.prefix(while: { $0 != "--" }) where argument.hasPrefix("--") {
            let name = String(argument.prefix { $0 != "=" })
            if single.contains(name) && !seen.insert(name).inserted { return name }
        }
        return nil
    }

    /// The long names argument-parser gives the properties of `value` that are options of one
    /// value (`signalLoss` → `--signal-loss`), through its option groups. A property named
    /// otherwise (`.customLong`) is not found: it is simply not questioned.
    private static func names(of value: Any) -> [String] {
        Mirror(reflecting: value).children.flatMap { child -> [String] in
            guard let label = child.label, label.hasPrefix("_") else { return [] }
            let type = String(describing: Swift.type(of: child.value))
            if type.hasPrefix("OptionGroup<") { return group(in: child.value).map(names(of:)) ?? [] }
            guard type.hasPrefix("Option<"), !type.contains("Array<") else { return [] }
            return ["--" + kebab(label.dropFirst())]
        }
    }

    /// The arguments an option group holds, found a few levels into its storage.
    private static func group(in value: Any, depth: Int = 0) -> (any ParsableArguments)? {
        if depth > 0, let arguments = value as? any ParsableArguments { return arguments }
        guard depth < 4 else { return nil }
        for child in Mirror(reflecting: value).children {
            if let found = group(in: child.value, depth: depth + 1) { return found }
        }
        return nil
    }

    /// `twitterBaseURL` → `twitter-base-url`: a word starts at a capital after a small letter, or
    /// at the last capital of a run before a small letter.
    private static func kebab(_ name: Substring) -> String {
        let characters = Array(name)
        var out = ""
        for (index, character) in characters.enumerated() {
            let previous = index > 0 ? characters[index - 1] : nil
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            if character.isUppercase, let previous,
                previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true)
            {
                out.append("-")
            }
            out.append(contentsOf: character.lowercased())
        }
        return out
    }
}
