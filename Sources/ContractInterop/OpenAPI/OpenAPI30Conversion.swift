#if canImport(OpenAPIKit)
    import Foundation
    import OpenAPIKit
    import OpenAPIKit30
    import OpenAPIKitCompat
    import Yams

    /// OpenAPI 3.0 documents, decoded with OpenAPIKit30 and converted to the 3.1 model
    /// (OpenAPIKitCompat): `nullable: true` becomes a null type, `example` an `examples` entry.
    enum OpenAPI30Conversion {
        /// A 3.0 document's text.
        enum Source {
            case json(Data)
            case yaml(String)
        }

        /// A decoding failure, where and what.
        struct Failure: Error {
            let location: String
            let message: String
        }

        static func decode(_ source: Source) throws -> OpenAPIKit.OpenAPI.Document {
            do {
                let document: OpenAPIKit30.OpenAPI.Document =
                    switch source {
                    case .json(let data): try JSONDecoder().decode(OpenAPIKit30.OpenAPI.Document.self, from: data)
                    case .yaml(let text): try YAMLDecoder().decode(OpenAPIKit30.OpenAPI.Document.self, from: text)
                    }
                return document.convert(to: .v3_1_1)
            } catch {
                let described = OpenAPIKit30.OpenAPI.Error(from: error)
                throw Failure(location: described.codingPathString, message: described.localizedDescription)
            }
        }
    }
#endif
