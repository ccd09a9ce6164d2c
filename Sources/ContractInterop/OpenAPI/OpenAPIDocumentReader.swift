#if canImport(OpenAPIKit)
    import Foundation
    import OpenAPIKit
    import Yams

    /// Reads an OpenAPI document (JSON or YAML; 3.0 converted to 3.1's model, 3.1 and 3.2 as
    /// they are) with OpenAPIKit, turning every failure into an ``OpenAPIImportError`` that says
    /// where: a syntax error's line and column, a decoding error's path in the document.
    enum OpenAPIDocumentReader {
        /// The document in OpenAPIKit's 3.1 model, the version it declared, and its vendor
        /// extensions at the top level.
        struct Read {
            let document: OpenAPI.Document
            let version: String
        }

        /// What tells the versions apart.
        private struct VersionProbe: Decodable {
            let openapi: String?
            let swagger: String?
        }

        static func read(_ data: Data, file: String) throws(OpenAPIImportError) -> Read {
            guard let text = String(data: data, encoding: .utf8) else {
                throw OpenAPIImportError(file: file, location: "", message: "not UTF-8 text")
            }
            let isJSON = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }.first == "{"
            if isJSON {
                do {
                    _ = try JSONSerialization.jsonObject(with: data)
                } catch {
                    let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription
                    var location = Self.lineAndColumn(in: detail)
                    // Foundation does not always say where; JSON is YAML, and Yams does.
                    if location.isEmpty, case .some(let yamlError as YamlError) = Result(catching: { try Yams.compose(yaml: text) }).failure
                    {
                        location = Self.location(of: yamlError)
                    }
                    throw OpenAPIImportError(file: file, location: location, message: "not valid JSON: \(detail)")
                }
            } else {
                do {
                    guard try Yams.compose(yaml: text) != nil else {
                        throw OpenAPIImportError(file: file, location: "", message: "the document is empty")
                    }
                } catch let error as YamlError {
                    throw OpenAPIImportError(
                        file: file, location: Self.location(of: error), message: "not valid YAML: \(Self.problem(of: error))")
                } catch let error as OpenAPIImportError {
                    throw error
                } catch {
                    throw OpenAPIImportError(file: file, location: "", message: "not valid YAML: \(error)")
                }
            }
            func decode<T: Decodable>(_ type: T.Type) throws -> T {
                isJSON ? try JSONDecoder().decode(type, from: data) : try YAMLDecoder().decode(type, from: text)
            }
            let probe: VersionProbe
            do {
                probe = try decode(VersionProbe.self)
            } catch {
                throw OpenAPIImportError(
                    file: file, location: "", message: "not an OpenAPI document: the top level must be an object with 'openapi'")
            }
            if let swagger = probe.swagger {
                throw OpenAPIImportError(
                    file: file, location: "swagger", message: "Swagger \(swagger) is not supported: convert it to OpenAPI 3 first")
            }
            guard let version = probe.openapi else {
                throw OpenAPIImportError(file: file, location: "", message: "not an OpenAPI document: it has no 'openapi' version")
            }
            do {
                if version.hasPrefix("3.0") {
                    return Read(document: try OpenAPI30Conversion.decode(isJSON ? .json(data) : .yaml(text)), version: version)
                }
                guard version.hasPrefix("3.1") || version.hasPrefix("3.2") else {
                    throw OpenAPIImportError(
                        file: file, location: "openapi", message: "OpenAPI \(version) is not supported (3.0, 3.1 and 3.2 are)")
                }
                return Read(document: try decode(OpenAPI.Document.self), version: version)
            } catch let error as OpenAPIImportError {
                throw error
            } catch let error as OpenAPI30Conversion.Failure {
                throw OpenAPIImportError(file: file, location: error.location, message: error.message)
            } catch {
                let described = OpenAPI.Error(from: error)
                throw OpenAPIImportError(file: file, location: described.codingPathString, message: described.localizedDescription)
            }
        }

        /// `line 3, column 5` from Foundation's "… around line 3, column 5."
        private static func lineAndColumn(in detail: String) -> String {
            guard let range = detail.range(of: #"line [0-9]+, column [0-9]+"#, options: .regularExpression) else { return "" }
            return String(detail[range])
        }

        private static func location(of error: YamlError) -> String {
            switch error {
            case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _):
                return "line \(mark.line), column \(mark.column)"
            default:
                return ""
            }
        }

        private static func problem(of error: YamlError) -> String {
            switch error {
            case .scanner(_, let problem, _, _), .parser(_, let problem, _, _), .composer(_, let problem, _, _):
                return problem
            default:
                return "\(error)"
            }
        }
    }

    extension Result {
        /// The error, when this is one.
        fileprivate var failure: Failure? {
            if case .failure(let error) = self { error } else { nil }
        }
    }
#endif
