// Contracts are written in matchers: whoever imports the contracts imports the matchers.
@_exported import ContractMatching
