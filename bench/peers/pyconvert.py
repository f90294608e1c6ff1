"""Python peer of `jbx convert` for bench/run: JSON <-> CBOR (cbor2) and
JSON <-> MessagePack (msgpack), both with their C extensions (Debian's
python3-cbor2 and python3-msgpack). Reads FILE, converts, writes to stdout,
as a command-line tool would. Not part of jbx.

    /usr/bin/python3 pyconvert.py json2cbor|cbor2json|json2msgpack|msgpack2json FILE

JSON Lines input (FILE ending in .jsonl) becomes a sequence of binary
documents, and a sequence becomes JSON Lines.
"""
import io
import json
import sys

import cbor2
import msgpack


def json_docs(path):
    with open(path, "rb") as f:
        if path.endswith(".jsonl"):
            for line in f:
                if line.strip():
                    yield json.loads(line)
        else:
            yield json.loads(f.read())


def cbor_docs(path):
    with open(path, "rb") as f:
        data = f.read()
    stream = io.BytesIO(data)
    decoder = cbor2.CBORDecoder(stream)
    while stream.tell() < len(data):
        yield decoder.decode()


def msgpack_docs(path):
    with open(path, "rb") as f:
        data = f.read()
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False,
                                max_buffer_size=len(data) + 1)
    unpacker.feed(data)
    yield from unpacker


def write_json(docs, out):
    for doc in docs:
        out.write(json.dumps(doc, ensure_ascii=False,
                             separators=(",", ":")).encode())
        out.write(b"\n")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    mode, path = sys.argv[1], sys.argv[2]
    out = sys.stdout.buffer
    if mode == "json2cbor":
        for doc in json_docs(path):
            out.write(cbor2.dumps(doc))
    elif mode == "json2msgpack":
        packer = msgpack.Packer()
        for doc in json_docs(path):
            out.write(packer.pack(doc))
    elif mode == "cbor2json":
        write_json(cbor_docs(path), out)
    elif mode == "msgpack2json":
        write_json(msgpack_docs(path), out)
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
