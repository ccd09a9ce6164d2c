import ContractKit
import Foundation
import Testing

@Suite struct ProviderTemplateTests {
    @Test func defaultsApplyOnlyWhenTheVariableHasNoValue() throws {
        let template = Template("{{env.PORT:-8080}}")
        #expect(try template.render([:]) == "8080")
        #expect(try template.render(["env.PORT": .string("9000")]) == "9000")
        #expect(template.variables == ["env.PORT"])
        #expect(template.requiredVariables == [])
    }

    @Test func defaultsMayUseVariablesThemselves() throws {
        let template = Template("--data-dir {{env.DATA:-{{scratch}}/cluster}} --port {{port}}")
        #expect(try template.render(["scratch": .string("/tmp/s"), "port": .string("1")]) == "--data-dir /tmp/s/cluster --port 1")
        #expect(try template.render(["env.DATA": .string(".authd"), "port": .string("1")]) == "--data-dir .authd --port 1")
        #expect(template.requiredVariables == ["scratch", "port"])
        #expect(throws: Template.UndefinedVariable.self) { try template.render(["port": .string("1")]) }
    }

    @Test func anUnclosedPlaceholderStaysText() throws {
        #expect(try Template("{{a:-{{b}}").render(["b": .string("x")]) == "{{a:-{{b}}")
    }

    @Test func contractYAMLNamesSwiftProductsToBuild() {
        let (configuration, diagnostics) = ContractLoader.parseProvider(
            yaml: """
                provider:
                  swift_products: [authd, tool]
                  swift_package: ..
                  command: "{{bin.authd}} serve --port {{port}}"
                  base_url: http://127.0.0.1:{{port}}
                """,
            file: "contract.yaml"
        )
        #expect(diagnostics == [])
        #expect(configuration?.swiftProducts == ["authd", "tool"])
        #expect(configuration?.swiftPackage == "..")
    }

    @Test func badSwiftProductsAreReportedWithTheirLine() {
        let (_, diagnostics) = ContractLoader.parseProvider(
            yaml: """
                provider:
                  swift_products: authd
                  command: x
                """,
            file: "contract.yaml"
        )
        #expect(diagnostics.map(\.description) == ["contract.yaml:2:19: swift_products must be a list of product names, not text"])
        let (_, names) = ContractLoader.parseProvider(yaml: "provider:\n  swift_products: [\"a b\"]\n", file: "contract.yaml")
        #expect(names.map(\.description) == ["contract.yaml:2:20: 'a b' is not a SwiftPM product name"])
    }
}
