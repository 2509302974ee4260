// Every source of trust a run's processes take from the environment they start in, besides Node's
// bundled CAs: a CA added to Node (NODE_EXTRA_CA_CERTS), OpenSSL's or the system's store
// (--use-openssl-ca, --use-system-ca, in NODE_OPTIONS or Node's own options) and what steers
// OpenSSL's store (SSL_CERT_FILE, SSL_CERT_DIR), and NODE_OPTIONS itself. A private CA trusted so
// makes a certificate the run verified one a public client need not accept: the report records
// each source and `verify` names it. Paths and option names only: no secret travels here.

const STORE_OPTIONS = ['--use-openssl-ca', '--use-system-ca', '--use-bundled-ca'];

export function trustSources(
  env: NodeJS.ProcessEnv,
  execArgv: readonly string[] = process.execArgv,
): string[] {
  const options = [...(env.NODE_OPTIONS ?? '').split(/\s+/), ...execArgv];
  return [
    ...(env.NODE_EXTRA_CA_CERTS
      ? [`NODE_EXTRA_CA_CERTS=${env.NODE_EXTRA_CA_CERTS}: CAs added to Node's`]
      : []),
    ...STORE_OPTIONS.filter((option) => options.includes(option)).map(
      (option) =>
        `${option}: Node trusts ${option === '--use-bundled-ca' ? 'its bundled' : option === '--use-openssl-ca' ? "OpenSSL's store of" : "the system's store of"} CAs`,
    ),
    ...(env.SSL_CERT_FILE ? [`SSL_CERT_FILE=${env.SSL_CERT_FILE}: OpenSSL's CA file`] : []),
    ...(env.SSL_CERT_DIR ? [`SSL_CERT_DIR=${env.SSL_CERT_DIR}: OpenSSL's CA folder`] : []),
    ...(env.NODE_OPTIONS?.trim() ? [`NODE_OPTIONS=${env.NODE_OPTIONS.trim()}`] : []),
  ];
}
