import ArgumentParser
import Foundation

/// A single-valued option given twice: argument-parser keeps the last, so `--regions a.yaml
/// --regions b.yaml` monitored b's regions alone, silently (a black-box hunt). One usage error
/// names it; options that take several values (`--param`, `--radius`) are not questioned.
enum RepeatedOption {
    /// The first single-valued option of `command` (its option groups' included) that
    /// `arguments` give more than once, under one name or two (`-o a --output b`), or nil.
    static func first(in command: any ParsableCommand.Type, _ arguments: [String]) -> String? {
        let words = arguments.prefix(while: { $0 != "--" }).filter { $0.hasPrefix("-") }
        // A command line naming fewer than two options repeats none: no need to ask for them.
        guard words.count > 1 else { return nil }
        let options = names(of: command)
        var seen: Set<String> = []
        for word in words {
            guard let option = options[String(word.prefix { $0 != "=" })] else { continue }
            if !seen.insert(option).inserted { return option }
        }
        return nil
    }

    /// The names (`--regions`, `-o`) of `command`'s options of one value, each to the option's
    /// first long name, as argument-parser itself lists them (`--experimental-dump-help`'s
    /// document): custom names included.
    private static func names(of command: any ParsableCommand.Type) -> [String: String] {
        guard let help = try? JSONDecoder().decode(Help.self, from: Data(command._dumpHelp().utf8)) else { return [:] }
        var options: [String: String] = [:]
        for argument in help.command.arguments ?? [] where argument.kind == "option" && !argument.isRepeating {
            let names = (argument.names ?? []).map { ($0.kind == "long" ? "--" : "-") + $0.name }
            guard let shown = names.first(where: { $0.hasPrefix("--") }) ?? names.first else { continue }
            for name in names { options[name] = shown }
        }
        return options
    }

    /// The part of argument-parser's help document read here.
    private struct Help: Decodable {
        struct Command: Decodable { var arguments: [Argument]? }
        struct Argument: Decodable {
            var kind: String
            var names: [Name]?
            var isRepeating: Bool
        }
        /// `long` (`--name`), `short` (`-n`) or `longWithSingleDash` (`-name`).
        struct Name: Decodable {
            var kind: String
            var name: String
        }
        var command: Command
    }
}
