// Cross-checks Phobos's Zarr v3 code against zarrita (zarrita.js, an
// independent implementation), run by TestV3Zarrita with node, fed on
// standard input with the working directory where zarrita is installed
// (npm install zarrita):
//
//   node --input-type=module - write DIR     writes stores with zarrita into
//                                            DIR and DIR/cases.json, each
//                                            store's name, dtype, shape and
//                                            values
//   node --input-type=module - read LIST OUT reads the stores LIST names
//                                            ([{name, path}]) with zarrita and
//                                            writes their values to OUT
//
// Values go as JSON numbers, except int64 (decimal strings) and NaN,
// Infinity and -Infinity (those strings).
import * as zarr from "zarrita";
import FileSystemStore from "@zarrita/storage/fs";
import * as fs from "node:fs";
import * as path from "node:path";

const [mode, a, b] = process.argv.slice(2);

function value(dtype, i) {
	switch (dtype) {
		case "bool":
			return i % 3 === 0;
		case "int32":
			return i * 7 - 100;
		case "int64":
			return BigInt(i) * 1000000007n - 5000000000n;
		case "float32":
			return Math.fround(i * 0.25 - 3);
	}
	return i * 0.5 - 7.25;
}

function typed(dtype, n) {
	switch (dtype) {
		case "bool":
			return new zarr.BoolArray(n);
		case "int32":
			return new Int32Array(n);
		case "int64":
			return new BigInt64Array(n);
		case "float32":
			return new Float32Array(n);
	}
	return new Float64Array(n);
}

function jsonValue(v) {
	if (typeof v === "bigint") return v.toString();
	if (typeof v === "boolean") return v ? 1 : 0;
	if (Number.isNaN(v)) return "NaN";
	if (v === Infinity) return "Infinity";
	if (v === -Infinity) return "-Infinity";
	return v;
}

function strides(shape) {
	const s = new Array(shape.length).fill(1);
	for (let i = shape.length - 2; i >= 0; i--) s[i] = s[i + 1] * shape[i + 1];
	return s;
}

function size(shape) {
	return shape.reduce((x, y) => x * y, 1);
}

// elements lists a chunk's values in C order, following its strides (a
// transpose codec leaves them permuted).
function elements(chunk) {
	const { data, shape, stride } = chunk;
	const out = [];
	const n = size(shape);
	const idx = new Array(shape.length).fill(0);
	for (let k = 0; k < n; k++) {
		let at = 0;
		for (let d = 0; d < shape.length; d++) at += idx[d] * stride[d];
		out.push(jsonValue(data.get ? data.get(at) : data[at]));
		for (let d = shape.length - 1; d >= 0; d--) {
			if (++idx[d] < shape[d]) break;
			idx[d] = 0;
		}
	}
	return out;
}

const fills = { bool: true, int32: -7, int64: -7, float32: NaN, float64: "NaN" };

async function write(dir) {
	const le = { name: "bytes", configuration: { endian: "little" } };
	const chains = (dtype, nd) => {
		// zarrita 0.7.5 swaps the bytes of bool chunks under "endian": "big"
		// (it cannot read such a store of its own back), though a bool's
		// byte does not depend on endian: big-endian bool is not written.
		const be = { name: "bytes", configuration: { endian: dtype === "bool" ? "little" : "big" } };
		const ts = { bool: 1, int32: 4, int64: 8, float32: 4, float64: 8 }[dtype];
		const c = {
			"bytes little": [le],
			"bytes big": [be],
			"blosc lz4 shuffle": [le, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: ts, blocksize: 0 } }],
			"blosc zstd bitshuffle": [le, { name: "blosc", configuration: { cname: "zstd", clevel: 3, shuffle: "bitshuffle", typesize: ts, blocksize: 0 } }],
			"blosc zlib noshuffle": [be, { name: "blosc", configuration: { cname: "zlib", clevel: 3, shuffle: "noshuffle", typesize: ts, blocksize: 0 } }],
			"blosc lz4hc shuffle": [le, { name: "blosc", configuration: { cname: "lz4hc", clevel: 5, shuffle: "shuffle", typesize: ts, blocksize: 0 } }],
			zstd: [le, { name: "zstd", configuration: { level: 3, checksum: false } }],
			"zstd checksum big": [be, { name: "zstd", configuration: { level: 1, checksum: true } }],
		};
		if (nd > 1) {
			const order = [...Array(nd).keys()].reverse();
			c["transpose"] = [{ name: "transpose", configuration: { order } }, le];
			c["transpose zstd"] = [{ name: "transpose", configuration: { order: [nd - 1, ...Array(nd - 1).keys()] } }, be, { name: "zstd", configuration: { level: 1, checksum: false } }];
		}
		return c;
	};
	const shapes = [
		[[7, 5], [3, 2]],
		[[10], [3]],
		[[4, 5, 6], [2, 5, 4]],
		[[3, 2], [5, 5]],
		[[3, 4], [1, 1]],
		[[600], [256]],
	];
	const cases = [];
	let n = 0;
	for (const dtype of ["bool", "int32", "int64", "float32", "float64"]) {
		for (const [shape, chunkShape] of shapes) {
			for (const [cname, codecs] of Object.entries(chains(dtype, shape.length))) {
				if (shape.length !== 2 && !cname.startsWith("bytes") && !cname.startsWith("transpose") && n % 2) {
					n++;
					continue;
				}
				const name = `z${n}`;
				const sep = n % 2 ? "." : "/";
				// Every third store is written in part: the rest is missing
				// chunks, which read as the fill value.
				const partial = n % 3 === 0 && shape[0] > 1;
				n++;
				const store = new FileSystemStore(path.join(dir, name + ".zarr"));
				const fill = partial ? fills[dtype] : dtype === "bool" ? false : 0;
				const arr = await zarr.create(store, { shape, chunkShape, dtype, codecs, fillValue: fill, chunkSeparator: sep });
				const total = size(shape);
				const data = typed(dtype, total);
				const values = [];
				const rows = partial ? Math.min(chunkShape[0], shape[0] - 1) : shape[0];
				const rowSize = total / shape[0];
				for (let i = 0; i < total; i++) {
					let v = value(dtype, i);
					if (Math.floor(i / rowSize) >= rows) {
						v = dtype === "int64" ? BigInt(fills[dtype]) : dtype === "float64" ? NaN : fills[dtype];
					}
					if (data.set && !ArrayBuffer.isView(data)) data.set(i, v);
					else data[i] = v;
					values.push(jsonValue(v));
				}
				if (partial) {
					const sub = typed(dtype, rows * rowSize);
					for (let i = 0; i < rows * rowSize; i++) {
						if (sub.set && !ArrayBuffer.isView(sub)) sub.set(i, value(dtype, i));
						else sub[i] = value(dtype, i);
					}
					const subShape = [rows, ...shape.slice(1)];
					await zarr.set(arr, [zarr.slice(0, rows), ...shape.slice(1).map(() => null)], { data: sub, shape: subShape, stride: strides(subShape) });
				} else {
					await zarr.set(arr, null, { data, shape, stride: strides(shape) });
				}
				cases.push({ name, desc: `${dtype} ${JSON.stringify(shape)} chunks ${JSON.stringify(chunkShape)} ${cname} sep ${sep}${partial ? " partial" : ""}`, dtype, shape, values });
			}
		}
	}
	fs.writeFileSync(path.join(dir, "cases.json"), JSON.stringify(cases));
}

async function read(list, out) {
	const results = [];
	for (const { name, path: p } of JSON.parse(fs.readFileSync(list, "utf8"))) {
		try {
			const arr = await zarr.open(new FileSystemStore(p), { kind: "array" });
			const got = await zarr.get(arr);
			const values = got.data ? elements(got) : [jsonValue(got)]; // a 0-d array reads as a scalar
			results.push({ name, dtype: arr.dtype, shape: arr.shape, values });
		} catch (e) {
			results.push({ name, error: `${e.message}${e.cause ? ": " + e.cause.message : ""}` });
		}
	}
	fs.writeFileSync(out, JSON.stringify(results));
}

if (mode === "write") await write(a);
else if (mode === "read") await read(a, b);
else throw new Error(`mode ${mode}: write DIR or read LIST OUT`);
