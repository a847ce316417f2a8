#!/usr/bin/env node
// A verifier written from the bundle alone, in JavaScript: the dependency map D_t of
// Definition 2.1 without its epistemic part M_t, the eight operations of Table 3 in the
// fixed order, atomic turns, and the queries it declares.  It speaks gcv-conform/1
// (protocol/protocol.md): one JSON request per line on standard input, one response per
// line on standard output.
//
//     gcv conform -- node examples/adapter.js
//
// It declares `core` and some queries, not `epistemic`: the cases that need M_t are
// skipped, not failed, and a turn carrying an epistemic field is answered `unsupported`.
// Node's standard library only; no build step.
"use strict";

const readline = require("readline");

const PROTOCOL = "gcv-conform/1";
const FEATURES = [
  "core",
  "query:verify",
  "query:affected",
  "query:affected_star",
  "query:affected_star_active",
  "query:standing",
  "query:dependencies",
  "query:attackers",
  "query:dissenters",
  "query:commitments",
];
// The fixed order of a turn (normative.md, clause order.kinds).
const ORDER = [
  "expand-awareness", "observe", "hypothesize", "support",
  "undermine", "revise", "resolve", "question",
];
const IN_S_T = new Set(["active", "resolved"]); // S_t (Section 2)
const EPISTEMIC_FIELDS = ["formula", "introduces", "specific", "downgrade", "announce"];

class Refused extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function refuse(condition, code, message) {
  if (!condition) throw new Refused(code, message);
}

// D_t: records (id -> {claim, speaker, turn, kind, standing}), Dep and Att as maps from a
// record to a set, Cm_t and the recorded dissent.
function emptyMap(agents, atoms) {
  return {
    agents: [...agents],
    atoms: new Set(atoms),
    awareness: new Map(agents.map((a) => [a, new Set(atoms)])),
    turn: 0,
    records: new Map(),
    dep: new Map(),
    att: new Map(), // target -> its attackers
    commitments: new Map(agents.map((a) => [a, new Set()])),
    dissent: new Map(),
  };
}

function copyMap(d) {
  const copySets = (m) => new Map([...m].map(([k, s]) => [k, new Set(s)]));
  return {
    agents: d.agents,
    atoms: new Set(d.atoms),
    awareness: copySets(d.awareness),
    turn: d.turn,
    records: new Map([...d.records].map(([k, r]) => [k, { ...r }])),
    dep: copySets(d.dep),
    att: copySets(d.att),
    commitments: copySets(d.commitments),
    dissent: copySets(d.dissent),
  };
}

function addTo(map, key, value) {
  if (!map.has(key)) map.set(key, new Set());
  map.get(key).add(value);
}

// -- the operations (Table 3) ------------------------------------------------------

function cite(d, field, records, own, allowed) {
  for (const r of records) {
    refuse(r !== own, "self-reference", `${field}: ${r} is the operation's own record`);
    refuse(d.records.has(r), "unknown-record", `${field}: ${r} is not registered`);
    if (allowed) {
      refuse(allowed.has(d.records.get(r).standing), "wrong-standing", `${field}: ${r} is ${d.records.get(r).standing}`);
    }
  }
}

function register(d, id, claim, kind, speaker, dependsOn) {
  d.records.set(id, { claim, speaker, turn: d.turn, kind, standing: "active" });
  for (const r of dependsOn) addTo(d.dep, id, r);
}

function newRecord(d, op) {
  refuse(!d.records.has(op.id), "duplicate-record", `${op.id} is already registered`);
  cite(d, "depends_on", op.depends_on || [], op.id, null);
}

function target(d, op, allowed) {
  refuse(d.records.has(op.target), "unknown-record", `target ${op.target} is not registered`);
  const standing = d.records.get(op.target).standing;
  refuse(allowed.has(standing), "wrong-standing", `target ${op.target} is ${standing}`);
}

// Support's and Undermine's evidence: a new record when it carries a claim, else an
// existing record of S_t; the speaker commits to it.
function evidence(d, op, speaker) {
  refuse(op.evidence !== op.target, "self-reference", "the evidence is the target");
  if (op.evidence_claim == null) {
    cite(d, "evidence", [op.evidence], null, IN_S_T);
  } else {
    refuse(!d.records.has(op.evidence), "duplicate-record", `${op.evidence} is already registered`);
    const dependsOn = op.evidence_depends_on || [];
    cite(d, "evidence_depends_on", dependsOn, op.evidence, null);
    register(d, op.evidence, op.evidence_claim, "evidence", speaker, dependsOn);
  }
  d.commitments.get(speaker).add(op.evidence);
}

const PROCESS = {
  "expand-awareness"(d, op) {
    const named = op.agents || [];
    for (const a of named) refuse(d.agents.includes(a), "unknown-agent", `${a} is no agent`);
    const growing = named.length ? named : d.agents;
    refuse(growing.some((a) => !d.awareness.get(a).has(op.atom)), "already-aware", `${op.atom}: nobody new`);
    d.atoms.add(op.atom);
    for (const a of growing) d.awareness.get(a).add(op.atom);
  },
  observe(d, op, speaker) {
    newRecord(d, op);
    register(d, op.id, op.claim, op.kind || "observation", speaker, op.depends_on || []);
    d.commitments.get(speaker).add(op.id);
  },
  hypothesize(d, op, speaker) {
    newRecord(d, op);
    register(d, op.id, op.claim, op.kind || "hypothesis", speaker, op.depends_on || []);
  },
  support(d, op, speaker) {
    target(d, op, new Set(["active", "weakened", "resolved"]));
    evidence(d, op, speaker);
    addTo(d.dep, op.target, op.evidence);
  },
  undermine(d, op, speaker) {
    target(d, op, new Set(["active", "weakened"]));
    evidence(d, op, speaker);
    addTo(d.att, op.target, op.evidence);
    d.records.get(op.target).standing = "weakened";
  },
  revise(d, op, speaker) {
    target(d, op, new Set(["active", "weakened", "abandoned", "resolved"]));
    const attackers = op.attackers || [];
    cite(d, "attackers", attackers, op.target, IN_S_T);
    for (const a of attackers) addTo(d.att, op.target, a);
    d.records.get(op.target).standing = "abandoned";
    d.commitments.get(speaker).delete(op.target);
  },
  resolve(d, op, speaker) {
    target(d, op, IN_S_T);
    refuse(!(d.att.get(op.target) || new Set()).size, "attacked-target", `${op.target} is attacked`);
    cite(d, "subsumes", op.subsumes || [], op.target, null);
    cite(d, "premises", op.premises || [], op.target, IN_S_T);
    for (const a of op.dissenters || []) {
      refuse(d.agents.includes(a), "unknown-agent", `dissenter ${a} is no agent`);
      refuse(a !== speaker, "self-reference", "the speaker dissents from their own decision");
    }
    d.records.get(op.target).standing = "resolved";
    for (const s of op.subsumes || []) addTo(d.dep, s, op.target);
    for (const p of op.premises || []) addTo(d.dep, op.target, p);
    for (const a of op.dissenters || []) addTo(d.dissent, op.target, a);
    for (const a of op.authoritative ? [speaker] : d.agents) d.commitments.get(a).add(op.target);
  },
  question(d, op) {
    // A Question registers no record; its id must not be one (normative.md).
    refuse(!d.records.has(op.id), "duplicate-record", `${op.id} is already registered`);
  },
};

function malformed(op) {
  for (const name of ["claim", "evidence_claim"]) {
    if (typeof op[name] === "string" && !op[name].trim()) return `${name} is blank`;
  }
  if ((op.evidence_depends_on || []).length && op.evidence_claim == null) {
    return "evidence_depends_on without evidence_claim";
  }
  if (op.op === "resolve" && !op.authoritative) {
    for (const name of ["premises", "dissenters"]) {
      if ((op[name] || []).length) return `${name} on a consensual Resolve`;
    }
  }
  return null;
}

// One turn, all or none: checked and applied on a copy, which replaces D_t when every
// operation passed.
function applyTurn(d, speaker, operations) {
  for (const op of operations) {
    if (EPISTEMIC_FIELDS.some((f) => op[f] != null)) {
      throw new Refused("unsupported", "this implementation has no epistemic layer");
    }
    const problem = malformed(op);
    if (problem) throw new Refused("malformed-operation", problem);
  }
  refuse(d.agents.includes(speaker), "unknown-agent", `${speaker} is no agent`);
  const staged = copyMap(d);
  staged.turn += 1;
  for (const kind of ORDER) {
    for (const op of operations) {
      if (op.op === kind) PROCESS[kind](staged, op, speaker);
    }
  }
  return staged;
}

// -- the queries (Lemma 2.1, Definition 2.3) ----------------------------------------

function reach(start, next) {
  const seen = new Set(start);
  const frontier = [...start];
  while (frontier.length) {
    for (const r of next(frontier.pop())) {
      if (!seen.has(r)) {
        seen.add(r);
        frontier.push(r);
      }
    }
  }
  return seen;
}

function dependents(d, record) {
  return [...d.dep].filter(([, supports]) => supports.has(record)).map(([r]) => r);
}

function registered(d, record) {
  refuse(d.records.has(record), "unknown-record", `${record} is not registered`);
  return record;
}

function query(d, request) {
  const record = request.record;
  switch (request.query) {
    case "verify": {
      // No associated record, or none registered: nothing grounds it (normative.md).
      if (!d.records.has(record)) return { grounded: false, closure: [], witness: null };
      const closure = reach([record], (r) => d.dep.get(r) || []);
      const outside = [...closure].filter((r) => !IN_S_T.has(d.records.get(r).standing));
      return outside.length
        ? { grounded: false, closure: [...closure], witness: outside[0] }
        : { grounded: true, closure: [...closure], witness: null };
    }
    case "affected":
      return dependents(d, registered(d, record));
    case "affected_star":
    case "affected_star_active": {
      const star = reach(dependents(d, registered(d, record)), (r) => dependents(d, r));
      const all = [...star];
      return request.query === "affected_star" ? all : all.filter((r) => IN_S_T.has(d.records.get(r).standing));
    }
    case "standing":
      return d.records.get(registered(d, record)).standing;
    case "dependencies":
      return [...(d.dep.get(registered(d, record)) || [])];
    case "attackers":
      return [...(d.att.get(registered(d, record)) || [])];
    case "dissenters":
      return [...(d.dissent.get(registered(d, record)) || [])];
    case "commitments":
      refuse(d.agents.includes(request.agent), "unknown-agent", `${request.agent} is no agent`);
      return [...d.commitments.get(request.agent)];
    default:
      throw new Refused("unsupported", `query ${request.query} is not declared`);
  }
}

// -- the protocol -------------------------------------------------------------------

function handle(request, conversation) {
  switch (request.cmd) {
    case "handshake":
      refuse(request.protocol === PROTOCOL, "unsupported", `this adapter speaks ${PROTOCOL}`);
      return { protocol: PROTOCOL, name: "example-adapter-js", version: "1.0", features: FEATURES, language: "javascript" };
    case "start":
      conversation.d = emptyMap(request.agents, request.atoms || []);
      if (request.model != null) throw new Refused("unsupported", "no epistemic layer");
      return {};
    case "shutdown":
      return {};
    case "apply":
    case "query":
    case "render":
      refuse(conversation.d, "malformed-request", `${request.cmd} before start`);
      if (request.cmd === "render") throw new Refused("unsupported", "no renderer");
      if (request.cmd === "query") return query(conversation.d, request);
      conversation.d = applyTurn(conversation.d, request.speaker, request.operations);
      return { turn: conversation.d.turn };
    default:
      throw new Refused("malformed-request", `unknown cmd ${request.cmd}`);
  }
}

function main() {
  const conversation = { d: null };
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    let request = null;
    let response;
    try {
      request = JSON.parse(line);
      response = { id: request.id, ok: true, result: handle(request, conversation) };
    } catch (error) {
      // A line that is not JSON is malformed-request; anything else unexpected is this
      // adapter's own bug, shown on standard error, which the runner prints beside the case.
      if (!(error instanceof Refused || error instanceof SyntaxError)) console.error(error);
      const code = error instanceof Refused ? error.code : "malformed-request";
      const id = request && Number.isInteger(request.id) ? request.id : null;
      response = { id, ok: false, error: { code, message: String(error.message) } };
    }
    process.stdout.write(JSON.stringify(response) + "\n");
    if (request && request.cmd === "shutdown") {
      lines.close();
    }
  });
}

main();
