// check.mjs: read WARC files with webrecorder's warcio.js, a reader that
// shares no code with polite, and print a JSON summary on stdout.
//
//   node check.mjs FILE.warc.gz...
//
// warcio is imported from the node_modules folder of POLITE_WARCIO_DIR
// (where `npm install --prefix DIR warcio@2.4` put it).
//
// For every record of every file: its type, target URI, HTTP status, the
// WARC-Block-Digest and WARC-Payload-Digest checked against digests of the
// bytes read (node's own crypto), the record ids it names, and for a
// revisit whether the record it refers to was found with the same payload
// digest. Then warcio's cdx-index (its CDXIndexer, CDXJ format) indexes
// the same files. Any failure to parse is reported in "errors".

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const dir = process.env.POLITE_WARCIO_DIR;
if (!dir) {
  console.error("check.mjs: POLITE_WARCIO_DIR is not set");
  process.exit(2);
}
const warcio = await import(
  pathToFileURL(path.join(dir, "node_modules", "warcio", "dist", "index.js")).href
);

const files = process.argv.slice(2);
const summary = { files: files.map((f) => path.basename(f)), counts: {}, records: [], cdx: [], errors: [] };

// algorithms maps a WARC digest label to node's name.
const algorithms = { sha1: "sha1", sha256: "sha256", sha512: "sha512", md5: "md5" };

function base32(buf) {
  const abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0, value = 0, out = "";
  for (const b of buf) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += abc[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += abc[(value << (5 - bits)) & 31];
  return out;
}

// digestOK says whether the WARC digest value names the digest of bytes:
// null when there is no value, false when the label is unknown.
function digestOK(value, bytes) {
  if (!value) return null;
  const i = value.indexOf(":");
  const algo = algorithms[value.slice(0, i).toLowerCase()];
  if (!algo) return false;
  const want = value.slice(i + 1);
  const sum = crypto.createHash(algo).update(bytes).digest();
  return want.toLowerCase() === sum.toString("hex") || want.toUpperCase() === base32(sum);
}

// splitHTTP splits an application/http block at the line that ends its
// head (CRLF or LF alone), as a replay tool reads it.
function splitHTTP(block) {
  let start = 0;
  while (start < block.length) {
    let end = block.indexOf(10, start);
    if (end < 0) break;
    const line = end - start + 1;
    if (line <= 2 && (line === 1 || block[start] === 13)) {
      return { head: block.subarray(0, end + 1), payload: block.subarray(end + 1) };
    }
    start = end + 1;
  }
  return { head: block, payload: new Uint8Array(0) };
}

function statusOf(head) {
  const first = Buffer.from(head).toString("latin1").split("\n", 1)[0];
  const m = /^HTTP\/\S+\s+(\d{3})/.exec(first);
  return m ? Number(m[1]) : null;
}

for (const file of files) {
  const name = path.basename(file);
  try {
    const parser = new warcio.WARCParser(fs.createReadStream(file), { parseHttp: false });
    for await (const record of parser) {
      const block = await record.readFully(false);
      const h = (k) => record.warcHeaders.headers.get(k) || null;
      const type = record.warcType;
      const r = {
        file: name,
        offset: parser.offset,
        length: parser.recordLength,
        type,
        id: h("WARC-Record-ID"),
        uri: h("WARC-Target-URI"),
        date: h("WARC-Date"),
        ip: h("WARC-IP-Address"),
        contentLength: Number(h("Content-Length")),
        blockLength: block.length,
        blockDigest: h("WARC-Block-Digest"),
        blockDigestOK: digestOK(h("WARC-Block-Digest"), block),
        payloadDigest: h("WARC-Payload-Digest"),
        payloadDigestOK: null,
        truncated: h("WARC-Truncated"),
        concurrentTo: h("WARC-Concurrent-To"),
        warcinfoID: h("WARC-Warcinfo-ID"),
        filename: h("WARC-Filename"),
        profile: h("WARC-Profile"),
        refersTo: h("WARC-Refers-To"),
        refersToURI: h("WARC-Refers-To-Target-URI"),
        refersToDate: h("WARC-Refers-To-Date"),
        status: null,
        head: null,
      };
      if ((h("Content-Type") || "").startsWith("application/http")) {
        const { head, payload } = splitHTTP(block);
        r.head = Buffer.from(head).toString("base64");
        r.status = type === "request" ? null : statusOf(head);
        if (type !== "revisit") r.payloadDigestOK = digestOK(r.payloadDigest, payload);
      }
      if (type === "warcinfo") r.fields = Buffer.from(block).toString("utf8");
      summary.counts[type] = (summary.counts[type] || 0) + 1;
      summary.records.push(r);
    }
  } catch (e) {
    summary.errors.push(`${name}: ${e && e.stack ? e.stack : e}`);
  }
}

// A revisit's original must be among the records read, with the payload
// digest the revisit carries.
const byID = new Map(summary.records.map((r) => [r.id, r]));
for (const r of summary.records) {
  if (r.type !== "revisit") continue;
  const orig = byID.get(r.refersTo);
  r.refersToFound = Boolean(orig);
  r.refersToDigestMatch = Boolean(orig) && orig.payloadDigest === r.payloadDigest;
  r.refersToURIMatch = Boolean(orig) && orig.uri === r.refersToURI && orig.date === r.refersToDate;
}

// warcio's cdx-index, as `warcio cdx-index --format cdxj` runs it.
try {
  const indexer = new warcio.CDXIndexer({ format: "cdxj" });
  const streams = files.map((f) => ({ filename: path.basename(f), reader: fs.createReadStream(f) }));
  for await (const cdx of indexer.iterIndex(streams)) {
    summary.cdx.push(indexer.serialize(cdx).trimEnd());
  }
} catch (e) {
  summary.errors.push(`cdx-index: ${e && e.stack ? e.stack : e}`);
}

process.stdout.write(JSON.stringify(summary, null, 1) + "\n");
