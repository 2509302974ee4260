// `tenant-auth-conformance/playwright`: the suite as Playwright projects for a team's own config.
export {};
