-- A relying party introspects and revokes only the tokens meant for it (its audiences, or its
-- own client_credentials tokens); one the operator trusts with every token (`authd client add
-- --trusted-introspector`, a gateway say) is marked here.
ALTER TABLE oauth_clients ADD COLUMN trusted_introspector boolean NOT NULL DEFAULT false;
