// The stand-in's address arithmetic and nodeSelector subset.

import { expect } from "chai";
import {
  contains,
  formatCidr,
  formatIp,
  nthBlock,
  parseCidr,
  parseIp,
} from "../../lab/standin/ip.js";
import { parseSelector, selects } from "../../lab/standin/selector.js";

describe("calico-node stand-in: ip and selector", () => {
  it("parses and formats IPv4 and IPv6 (RFC 5952)", () => {
    expect(formatIp(false, parseIp("10.233.64.1")!.n)).to.equal("10.233.64.1");
    expect(formatIp(true, parseIp("fd85:ee78:d8a6:8607:0:0:1:0")!.n)).to.equal(
      "fd85:ee78:d8a6:8607::1:0",
    );
    expect(formatIp(true, parseIp("::1")!.n)).to.equal("::1");
    expect(formatIp(true, parseIp("1:0:0:2:0:0:0:3")!.n)).to.equal("1:0:0:2::3");
    expect(parseIp("10.1.2.256")).to.equal(null);
    expect(parseIp("1::2::3")).to.equal(null);
  });

  it("blocks: the k-th block, null past the pool's end", () => {
    const p = parseCidr("10.233.64.0/18")!;
    expect(formatCidr(nthBlock(p, 24, 2)!)).to.equal("10.233.66.0/24");
    expect(formatCidr(nthBlock(p, 26, 5)!)).to.equal("10.233.65.64/26");
    expect(nthBlock(p, 24, 64)).to.equal(null);
    const p6 = parseCidr("fd85:ee78:d8a6:8607::1:0/112")!;
    expect(formatCidr(nthBlock(p6, 122, 1)!)).to.equal("fd85:ee78:d8a6:8607::1:40/122");
    expect(contains(p, parseIp("10.233.127.255")!)).to.equal(true);
    expect(contains(p, parseIp("10.233.128.0")!)).to.equal(false);
    expect(contains(p, parseIp("::1")!)).to.equal(false);
  });

  it("selectors", () => {
    const l = { a: "x", b: "" };
    expect(selects(parseSelector("all()"), l)).to.equal(true);
    expect(selects(parseSelector(""), l)).to.equal(true);
    expect(selects(parseSelector("has(b) && a == 'x'"), l)).to.equal(true);
    expect(selects(parseSelector("!has(a)"), l)).to.equal(false);
    expect(selects(parseSelector('a != "x"'), l)).to.equal(false);
    expect(selects(parseSelector("c != 'x'"), l)).to.equal(true);
    const bad = parseSelector("a == 'x' || b == 'y'");
    expect(bad.ok).to.equal(false);
    expect(selects(bad, l)).to.equal(false);
  });
});
