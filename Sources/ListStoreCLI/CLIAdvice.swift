import ListStore

/// The library's messages speak of the store; at the command line, the next step is a command. This
/// adds it to the errors that have one.
enum CLIAdvice {
    /// `error`'s message with the command that helps, if any.
    static func message(for error: any Error) -> String {
        guard let error = error as? ListStoreError else { return "\(error)" }
        switch error.reason {
        case .sectionIndexOutOfRange, .rowIndexOutOfRange:
            return "\(error) (`liststore show` prints them)"
        case .positionsDamaged, .sectionOrderDamaged, .sectionCountDamaged:
            return "\(error); run `liststore repair`"
        case .storeNotEmpty:
            return "\(error) (--replace)"
        case .backupTargetExists(let path):
            return "\(path) already exists; choose a new FILE (a backup never overwrites)"
        case .needsMigration, .hotJournal:
            return "\(error) (e.g. `liststore init`)"
        default:
            return "\(error)"
        }
    }

    /// A library remedy in the CLI's words: the store call it names becomes the command.
    static func remedy(_ remedy: String) -> String {
        remedy.replacingOccurrences(of: "`repair()`", with: "run `liststore repair`")
    }
}
