extension Contract {
    /// What each saved variable holds, as the matcher at its source: `$.refresh_token`
    /// names the response matcher of `refresh_token`, `request.path.id` the matcher of
    /// `{id}`, a delivery's `$.token` the matcher of that delivery's `token`. A variable
    /// saved twice has its last source; one whose source has no matcher (a response header
    /// the contract does not list) is absent.
    ///
    /// ```swift
    /// contract.savedMatchers["first_refresh"]   // { match: string, min_length: 43, max_length: 43 }
    /// ```
    public var savedMatchers: [String: Matcher] {
        var matchers: [String: Matcher] = [:]
        for interaction in interactions {
            for (name, source) in interaction.save {
                let request = interaction.request
                let found: Matcher?
                switch source {
                case .responseBody(let path):
                    found = if case .json(let body) = interaction.response.body { path.matcher(in: body) } else { nil }
                case .responseHeader(let header): found = interaction.response.headers[header.lowercased()]
                case .requestBody(let path):
                    found = if case .json(let body) = request.body { path.matcher(in: body) } else { nil }
                case .requestPath(let parameter): found = request.path.params[parameter]
                case .requestQuery(let parameter): found = request.query.first { $0.name == parameter }?.value
                case .requestHeader(let header): found = firstHeader(header, in: request.headers)
                case .requestForm(let field):
                    found = if case .form(let form) = request.body { form.field(field) } else { nil }
                case .responseForm(let field):
                    found = if case .form(let form) = interaction.response.body { form.field(field) } else { nil }
                case .responseLocation: found = interaction.response.headers["location"]
                case .responseLocationQuery(let parameter):
                    found = interaction.response.location?.query.first { $0.name == parameter }?.value
                case .responseCookie(let cookie): found = interaction.response.cookies[cookie]?.value
                case .responseHTML(let html):
                    found = html.attribute.flatMap { attribute in
                        interaction.response.html.first { $0.selector == html.selector }?.attributes[attribute]
                    }
                }
                matchers[name] = found
            }
            for delivery in interaction.delivers {
                for (name, path) in delivery.save {
                    matchers[name] = delivery.body.flatMap { path.matcher(in: $0) }
                }
            }
        }
        return matchers
    }
}
