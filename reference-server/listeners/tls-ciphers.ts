// What the HTTPS listener accepts of TLS 1.2 (it refuses anything older).

/**
 * The TLS 1.2 cipher suites: AEAD only (AES-GCM, ChaCha20-Poly1305), with forward secrecy (ECDHE)
 * — the Mozilla "intermediate" list. CBC suites with SHA-1 MACs and static-RSA key exchange are
 * refused. It names no TLS 1.3 suite, so TLS 1.3 keeps Node's defaults (all of them AEAD).
 */
export const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');
