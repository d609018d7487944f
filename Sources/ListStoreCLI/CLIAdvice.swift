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
        case .noPayloadIndex, .unknownList, .listDeleted, .rowInAnotherList, .sectionInAnotherList:
            return inCommands(error.description)
        case .moveWithinList:
            return "\(error) (move, section move)"
        default:
            return "\(error)"
        }
    }

    /// A library message in the CLI's words: the store calls it names become the commands and options.
    private static func inCommands(_ message: String) -> String {
        message
            .replacingOccurrences(of: "payloadIndexes() lists the indexed fields", with: "`liststore indexes` lists the indexed fields")
            .replacingOccurrences(of: "lists() names the lists, addList(named:) adds one", with: "`liststore lists` shows the lists, `liststore list add NAME` adds one")
            .replacingOccurrences(of: "open another list (list(named:))", with: "open another list (--list NAME)")
            .replacingOccurrences(of: "open that list (list(named:)) to act on it", with: "name that list (--list) to act on it")
    }

    /// A library remedy in the CLI's words: the store call it names becomes the command.
    static func remedy(_ remedy: String) -> String {
        remedy.replacingOccurrences(of: "`repair()`", with: "run `liststore repair`")
    }
}
