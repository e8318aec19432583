import type { Answer, DecodedPacket } from 'dns-packet';

const TYPE_NUMBERS: Record<string, number> = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
};
const RCODE_NUMBERS: Record<string, number> = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
  YXDOMAIN: 6,
  YXRRSET: 7,
  NXRRSET: 8,
  NOTAUTH: 9,
  NOTZONE: 10,
};

const fqdn = (name: string) => (name.endsWith('.') ? name : `${name}.`);

function txtData(data: unknown): string {
  const parts = Array.isArray(data) ? data : [data];
  return parts.map((part) => JSON.stringify(Buffer.isBuffer(part) ? part.toString('utf8') : String(part))).join(' ');
}

/** The record's data as dig prints it. */
export function recordData(answer: Answer): string {
  const data = (answer as { data?: unknown }).data;
  switch (answer.type) {
    case 'A':
    case 'AAAA':
      return String(data);
    case 'CNAME':
    case 'NS':
    case 'PTR':
    case 'DNAME':
      return fqdn(String(data));
    case 'MX': {
      const mx = data as { preference?: number; exchange: string };
      return `${mx.preference ?? 0} ${fqdn(mx.exchange)}`;
    }
    case 'TXT':
      return txtData(data);
    case 'SOA': {
      const soa = data as {
        mname: string;
        rname: string;
        serial?: number;
        refresh?: number;
        retry?: number;
        expire?: number;
        minimum?: number;
      };
      return [fqdn(soa.mname), fqdn(soa.rname), soa.serial, soa.refresh, soa.retry, soa.expire, soa.minimum].join(' ');
    }
    case 'SRV': {
      const srv = data as { priority?: number; weight?: number; port?: number; target: string };
      return `${srv.priority ?? 0} ${srv.weight ?? 0} ${srv.port ?? 0} ${fqdn(srv.target)}`;
    }
    default:
      return Buffer.isBuffer(data) ? data.toString('hex') : JSON.stringify(data);
  }
}

const records = (list: Answer[] | undefined) => (list ?? []).filter((answer) => answer.type !== 'OPT');

/** The answer section, one dig-like line per record: `www.vigil.test.	600	IN	A	192.0.2.10`. */
export function textAnswer(packet: DecodedPacket): string {
  return records(packet.answers)
    .map((answer) =>
      [fqdn(answer.name), (answer as { ttl?: number }).ttl ?? 0, 'IN', answer.type, recordData(answer)].join('\t'),
    )
    .join('\n');
}

/**
 * The reply in the JSON form of DNS over HTTPS (application/dns-json, as Google and Cloudflare
 * serve it), so `$.Answer[0].data` reads the first record.
 */
export function jsonAnswer(packet: DecodedPacket, rcode: string) {
  const section = (list: Answer[] | undefined) =>
    records(list).map((answer) => ({
      name: fqdn(answer.name),
      type: TYPE_NUMBERS[answer.type] ?? answer.type,
      TTL: (answer as { ttl?: number }).ttl ?? 0,
      data: recordData(answer),
    }));
  return {
    Status: RCODE_NUMBERS[rcode] ?? rcode,
    TC: packet.flag_tc,
    RD: packet.flag_rd,
    RA: packet.flag_ra,
    AD: packet.flag_ad,
    CD: packet.flag_cd,
    Question: (packet.questions ?? []).map((q) => ({ name: fqdn(q.name), type: TYPE_NUMBERS[q.type] ?? q.type })),
    Answer: section(packet.answers),
    Authority: section(packet.authorities),
  };
}
