// HTTP/2 frames written by hand (RFC 9113 §4), for the requests Node's HTTP/2 client will not
// make: two fields of one name in a header block, a header block split over CONTINUATION frames,
// and the hostile shapes the reference's tests send (rapid resets, CONTINUATION floods). Header
// blocks use HPACK's literal representation without indexing and without Huffman coding
// (RFC 7541 §6.2.2): every field is sent as it is and the server's HPACK table is left as it was.

/** Frame types (RFC 9113 §6). */
export const FRAME_TYPE = {
  DATA: 0x0,
  HEADERS: 0x1,
  PRIORITY: 0x2,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9,
} as const;

/** Frame flags (RFC 9113 §6): END_STREAM and ACK share a bit, on different frame types. */
export const FRAME_FLAG = {
  END_STREAM: 0x1,
  ACK: 0x1,
  END_HEADERS: 0x4,
  PADDED: 0x8,
  PRIORITY: 0x20,
} as const;

/** Error codes of RST_STREAM and GOAWAY (RFC 9113 §7). */
export const ERROR_CODE = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  CANCEL: 0x8,
  ENHANCE_YOUR_CALM: 0xb,
} as const;

/** What a client sends first on a connection (RFC 9113 §3.4). */
export const CLIENT_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

const FRAME_HEADER_BYTES = 9;

export interface Frame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

/** One frame: its 9-byte header (length, type, flags, stream) and payload. */
export function frame(
  type: number,
  flags: number,
  streamId: number,
  payload: Buffer = Buffer.alloc(0),
): Buffer {
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  header.writeUIntBE(payload.length, 0, 3);
  header.writeUInt8(type, 3);
  header.writeUInt8(flags, 4);
  header.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([header, payload]);
}

/** An empty SETTINGS frame: the client's defaults, as the preface requires (RFC 9113 §3.4). */
export function emptySettings(): Buffer {
  return frame(FRAME_TYPE.SETTINGS, 0, 0);
}

export function rstStream(streamId: number, errorCode: number = ERROR_CODE.CANCEL): Buffer {
  const payload = Buffer.alloc(4);
  payload.writeUInt32BE(errorCode, 0);
  return frame(FRAME_TYPE.RST_STREAM, 0, streamId, payload);
}

/**
 * An HPACK header block of `fields` in order, repeats included, each a literal without indexing
 * with a literal name (RFC 7541 §6.2.2: the first byte 0x00, then name and value as raw strings).
 * Names are sent as given: HTTP/2 wants them lower case, which is the caller's to choose.
 */
export function headerBlock(fields: readonly (readonly [string, string])[]): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of fields) parts.push(Buffer.of(0x00), hpackString(name), hpackString(value));
  return Buffer.concat(parts);
}

/** An HPACK string literal without Huffman coding (RFC 7541 §5.2): its length, then its bytes. */
function hpackString(text: string): Buffer {
  const bytes = Buffer.from(text, 'latin1');
  return Buffer.concat([hpackInteger(bytes.length, 7, 0x00), bytes]);
}

/** An HPACK integer with an N-bit prefix (RFC 7541 §5.1); `firstBits` fill the first byte's rest. */
export function hpackInteger(value: number, prefixBits: number, firstBits: number): Buffer {
  const limit = (1 << prefixBits) - 1;
  if (value < limit) return Buffer.of(firstBits | value);
  const bytes = [firstBits | limit];
  let rest = value - limit;
  while (rest >= 128) {
    bytes.push((rest % 128) + 128);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/**
 * HEADERS (and CONTINUATION frames, if `fragments` has more than one) carrying `block` for
 * `streamId`: the block is cut into `fragments` pieces of about equal size, the last frame with
 * END_HEADERS, the HEADERS frame with END_STREAM when `endStream`.
 */
export function headersFrames(streamId: number, block: Buffer, endStream: boolean, fragments = 1): Buffer[] {
  const size = Math.max(1, Math.ceil(block.length / fragments));
  const pieces: Buffer[] = [];
  for (let start = 0; start < block.length || pieces.length === 0; start += size)
    pieces.push(block.subarray(start, start + size));
  return pieces.map((piece, index) => {
    const last = index === pieces.length - 1 ? FRAME_FLAG.END_HEADERS : 0;
    if (index > 0) return frame(FRAME_TYPE.CONTINUATION, last, streamId, piece);
    return frame(FRAME_TYPE.HEADERS, last | (endStream ? FRAME_FLAG.END_STREAM : 0), streamId, piece);
  });
}

/**
 * The whole frames at the start of `bytes`, and what is left after them (the start of a frame
 * still to come).
 */
export function readFrames(bytes: Buffer): { frames: Frame[]; rest: Buffer } {
  const frames: Frame[] = [];
  let offset = 0;
  while (bytes.length - offset >= FRAME_HEADER_BYTES) {
    const length = bytes.readUIntBE(offset, 3);
    const end = offset + FRAME_HEADER_BYTES + length;
    if (end > bytes.length) break;
    frames.push({
      type: bytes.readUInt8(offset + 3),
      flags: bytes.readUInt8(offset + 4),
      streamId: bytes.readUInt32BE(offset + 5) & 0x7fffffff,
      payload: bytes.subarray(offset + FRAME_HEADER_BYTES, end),
    });
    offset = end;
  }
  return { frames, rest: bytes.subarray(offset) };
}
