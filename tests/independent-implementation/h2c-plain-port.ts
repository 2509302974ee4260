// The plain-HTTP port of a server with HTTP/2 without TLS enabled on it, as Apache httpd 2.4 with
// mod_http2 and the common global `Protocols h2 h2c http/1.1` has it: a request asking
// `Upgrade: h2c` is switched (`101 Switching Protocols`) and then answered over HTTP/2 on stream 1;
// HTTP/2 by prior knowledge is answered over HTTP/2; anything else over HTTP/1.1. Every answer is
// the site's refusal, 403 `https_required`, never data: the spec's rejection, reached over h2c.
// Written here with a few hand-made frames (RFC 9113 §4; HPACK literals, RFC 7541 §6.2.2).
import { createServer, type Server, type Socket } from 'node:net';

const BODY = JSON.stringify({
  error: { code: 'https_required', message: 'This API is served over HTTPS only.' },
});
const PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';

function frame(type: number, flags: number, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header.writeUInt8(type, 3);
  header.writeUInt8(flags, 4);
  header.writeUInt32BE(stream, 5);
  return Buffer.concat([header, payload]);
}

/** A literal header field without indexing, new name, no Huffman coding (every string here is short). */
function literal(name: string, value: string): Buffer {
  return Buffer.concat([
    Buffer.from([0x00, name.length]),
    Buffer.from(name, 'latin1'),
    Buffer.from([value.length]),
    Buffer.from(value, 'latin1'),
  ]);
}

/** The server's preface, then the 403 on stream 1 and a graceful GOAWAY. */
function http2Refusal(): Buffer {
  const block = Buffer.concat([
    literal(':status', '403'),
    literal('content-type', 'application/json'),
    literal('cache-control', 'no-store'),
  ]);
  const goaway = Buffer.alloc(8);
  goaway.writeUInt32BE(1, 0);
  return Buffer.concat([
    frame(0x4, 0, 0), // SETTINGS
    frame(0x1, 0x4, 1, block), // HEADERS, END_HEADERS
    frame(0x0, 0x1, 1, Buffer.from(BODY)), // DATA, END_STREAM
    frame(0x7, 0, 0, goaway), // GOAWAY, NO_ERROR
  ]);
}

function http1Refusal(): string {
  return `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nCache-Control: no-store\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\nConnection: close\r\n\r\n${BODY}`;
}

const SWITCH = 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n';

function answer(socket: Socket, received: string): boolean {
  if (received.startsWith(PREFACE)) {
    socket.end(http2Refusal());
    return true;
  }
  if (PREFACE.startsWith(received)) return false;
  const end = received.indexOf('\r\n\r\n');
  if (end === -1) return false;
  const upgrade = /^upgrade:\s*h2c\s*$/im.test(received.slice(0, end));
  // The client's preface follows the switch; nothing it sends changes the answer.
  socket.end(upgrade ? Buffer.concat([Buffer.from(SWITCH), http2Refusal()]) : http1Refusal());
  return true;
}

export async function startH2cPlainPort(): Promise<{ port: number; server: Server }> {
  const server = createServer((socket) => {
    let received = '';
    let answered = false;
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      if (answered) return;
      received += chunk.toString('latin1');
      answered = answer(socket, received);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, server };
}
