import Foundation
import TestSupport
import Testing

/// The folders of `Sources/ListStore` form layers: a folder may use what the folders below it declare,
/// never what a folder above it declares (README.md, "Layout", states the same order; Docs/Layout.md each layer's role).
@Suite struct LayeringTests {
    /// The layers, bottom first. README.md's Layout section mirrors this list.
    static let layers = ["Core", "Generated", "File", "Positions", "Reading", "Changes", "Search", "Observation", "History", "Editing", "Maintenance", "Store", "SwiftUI"]

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func noFolderReferencesAFolderAboveIt() throws {
        let sources = Self.root.appendingPathComponent("Sources/ListStore")
        let found = try Layering.check(sources, layers: Self.layers)
        #expect(found.isEmpty, "upward references:\n\(found.joined(separator: "\n"))")
    }

    @Test func readmeStatesTheSameOrder() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let order = Self.layers.map { "`\($0)`" }.joined(separator: " → ")
        #expect(readme.contains(order), "README.md's Layout section lacks the layer order \(order)")
    }

    /// The check itself: a tree with each kind of upward reference is reported file by file, and the
    /// same tree with the references pointing down is clean.
    @Test func reportsEachKindOfUpwardReference() throws {
        let dir = try TemporaryDirectory()
        let base = URL(fileURLWithPath: dir.path("Sources"))
        func write(_ path: String, _ text: String) throws {
            let url = base.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try write(
            "Low/Value.swift",
            """
            import SQLiteLayer
            /// Mentions Facade and helper in a comment and in "a Facade string"; neither counts.
            struct Value { let count: Int }
            extension Connection { func lookUp() -> Int { 1 } }
            """)
        try write(
            "High/Facade.swift",
            """
            final class Facade { let value = Value(count: Connection.shared.lookUp()) }
            func helper() -> Int { 2 }
            """)
        #expect(try Layering.check(base, layers: ["Low", "High"]).isEmpty)

        try write(
            "Low/Upward.swift",
            """
            extension Facade { var size: Int { 0 } }
            let n = helper() + "\\(Facade.self)".count
            """)
        let found = try Layering.check(base, layers: ["Low", "High"])
        #expect(found.contains("Low/Upward.swift: extends `Facade`, declared in High (High/Facade.swift)"), "\(found)")
        #expect(found.contains("Low/Upward.swift: uses `Facade`, declared in High (High/Facade.swift)"), "\(found)")
        #expect(found.contains("Low/Upward.swift: uses `helper`, declared in High (High/Facade.swift)"), "\(found)")

        try write("Stray/Other.swift", "struct Other {}")
        #expect(try Layering.check(base, layers: ["Low", "High"]).contains("Stray: a folder that is not a layer"))
    }
}

/// Reads Swift sources as text: no compiler, so names are collected by a small tokenizer.
enum Layering {
    private struct File {
        let folder: String
        let path: String
        let tokens: [String]
    }

    /// One line per upward reference (`Folder/File.swift: uses `Name`, declared in Upper (Upper/File.swift)`),
    /// and one per folder that is not in `layers`.
    ///
    /// Declared names: every type (`struct`, `class`, `enum`, `protocol`, `actor`, `typealias`, nested
    /// ones too), every top-level `func`, `var` and `let`, and the members of extensions of types the
    /// module does not declare (as `extension Connection { func … }`), which are called like free
    /// functions. A name declared in several folders belongs to the lowest. An `extension` of a type
    /// declared in a higher folder is an upward reference too. Comments and string literals are not
    /// code; interpolations in strings are.
    static func check(_ sources: URL, layers: [String]) throws -> [String] {
        var problems: [String] = []
        var files: [File] = []
        let folders = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
        for folder in folders {
            var isDirectory: ObjCBool = false
            let url = sources.appendingPathComponent(folder)
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            if !isDirectory.boolValue {
                if folder.hasSuffix(".swift") { problems.append("\(folder): a source file outside every layer") }
                continue
            }
            if folder.hasSuffix(".docc") { continue }
            guard layers.contains(folder) else {
                problems.append("\(folder): a folder that is not a layer")
                continue
            }
            let enumerator = FileManager.default.enumerator(atPath: url.path)
            while let name = enumerator?.nextObject() as? String {
                guard name.hasSuffix(".swift") else { continue }
                let text = try String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)
                files.append(File(folder: folder, path: "\(folder)/\(name)", tokens: tokens(code(text))))
            }
        }
        files.sort { $0.path < $1.path }

        let typeKeywords: Set<String> = ["struct", "class", "enum", "protocol", "actor", "typealias"]
        let notNames: Set<String> = ["func", "var", "let", "init", "subscript", "case", "static", "final"]
        // Types first: whether an extension's members count as free functions depends on them.
        var types: [String: (layer: Int, path: String)] = [:]
        func declare(_ name: String, _ file: File, in table: inout [String: (layer: Int, path: String)]) {
            let layer = layers.firstIndex(of: file.folder) ?? 0
            if let known = table[name], known.layer <= layer { return }
            table[name] = (layer, file.path)
        }
        for file in files {
            for (index, token) in file.tokens.enumerated() where typeKeywords.contains(token) {
                guard index + 1 < file.tokens.count, isIdentifier(file.tokens[index + 1]),
                    !notNames.contains(file.tokens[index + 1])
                else { continue }
                declare(file.tokens[index + 1], file, in: &types)
            }
        }
        var names = types
        var extensions: [(file: File, type: String)] = []
        for file in files {
            var depth = 0
            var extended: String?
            for (index, token) in file.tokens.enumerated() {
                switch token {
                case "{": depth += 1
                case "}":
                    depth -= 1
                    if depth == 0 { extended = nil }
                case "extension" where depth == 0 && index + 1 < file.tokens.count:
                    extended = file.tokens[index + 1]
                    extensions.append((file, file.tokens[index + 1]))
                case "func", "var", "let":
                    let free = depth == 0 || (depth == 1 && extended.map { types[$0] == nil } == true)
                    if free, index + 1 < file.tokens.count, isIdentifier(file.tokens[index + 1]) {
                        declare(file.tokens[index + 1], file, in: &names)
                    }
                default: break
                }
            }
        }

        for (file, type) in extensions {
            let layer = layers.firstIndex(of: file.folder) ?? 0
            if let declared = types[type], declared.layer > layer {
                problems.append("\(file.path): extends `\(type)`, declared in \(layers[declared.layer]) (\(declared.path))")
            }
        }
        for file in files {
            let layer = layers.firstIndex(of: file.folder) ?? 0
            var reported = Set<String>()
            for token in file.tokens {
                guard let declared = names[token], declared.layer > layer, reported.insert(token).inserted else { continue }
                problems.append("\(file.path): uses `\(token)`, declared in \(layers[declared.layer]) (\(declared.path))")
            }
        }
        return problems
    }

    private static func isIdentifier(_ token: String) -> Bool {
        token.first.map { $0 == "_" || $0.isLetter } ?? false
    }

    /// Identifiers and braces, in order.
    private static func tokens(_ code: [UInt8]) -> [String] {
        var tokens: [String] = []
        var index = 0
        func isWordByte(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "_") || (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte >= 0x80
        }
        while index < code.count {
            let byte = code[index]
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "}") {
                tokens.append(String(UnicodeScalar(byte)))
                index += 1
            } else if isWordByte(byte) {
                let start = index
                while index < code.count, isWordByte(code[index]) { index += 1 }
                tokens.append(String(decoding: code[start..<index], as: UTF8.self))
            } else {
                index += 1
            }
        }
        return tokens
    }

    /// `text` without comments and string literals, keeping the code in string interpolations.
    private static func code(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var index = 0
        func at(_ offset: Int, _ string: String) -> Bool {
            let pattern = Array(string.utf8)
            return offset + pattern.count <= bytes.count && Array(bytes[offset..<offset + pattern.count]) == pattern
        }
        while index < bytes.count {
            if at(index, "//") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if at(index, "/*") {
                var depth = 0
                repeat {
                    if at(index, "/*") {
                        depth += 1
                        index += 2
                    } else if at(index, "*/") {
                        depth -= 1
                        index += 2
                    } else {
                        index += 1
                    }
                } while depth > 0 && index < bytes.count
            } else if bytes[index] == UInt8(ascii: "\"") || (bytes[index] == UInt8(ascii: "#") && at(index + 1, "\"")) {
                var hashes = 0
                while index < bytes.count, bytes[index] == UInt8(ascii: "#") {
                    hashes += 1
                    index += 1
                }
                let multiline = at(index, "\"\"\"")
                let quote = multiline ? "\"\"\"" : "\""
                index += quote.count
                let close = quote + String(repeating: "#", count: hashes)
                let escape = "\\" + String(repeating: "#", count: hashes)
                out.append(UInt8(ascii: " "))
                while index < bytes.count, !at(index, close) {
                    if at(index, escape + "(") {
                        // An interpolation: code up to its closing parenthesis.
                        index += escape.count + 1
                        var depth = 1
                        while index < bytes.count {
                            if bytes[index] == UInt8(ascii: "(") { depth += 1 }
                            if bytes[index] == UInt8(ascii: ")") {
                                depth -= 1
                                if depth == 0 { break }
                            }
                            out.append(bytes[index])
                            index += 1
                        }
                        out.append(UInt8(ascii: " "))
                        index += 1
                    } else if at(index, escape) {
                        index += escape.count + 1
                    } else {
                        index += 1
                    }
                }
                index += close.count
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }
}
