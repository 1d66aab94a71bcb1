import IMAPCore

extension [UntaggedResponse] {
    /// The UIDs of the SEARCH, SORT and ESEARCH answers among these, in the order given (a
    /// SORT's order is its answer).
    var answeredUIDs: [UInt32] {
        var uids: [UInt32] = []
        for response in self {
            switch response {
            case .search(let numbers, _), .sort(let numbers, _): uids += numbers
            case .extendedSearch(let answer): uids += answer.all?.numbers ?? []
            default: break
            }
        }
        return uids
    }
}
