import { describe, expect, it } from 'vitest';
import { classifyHeader, idsIn, normalizeSeverity, redGreen, severityAsWritten } from './ledger-columns';
import { headerName, isDelimiterRow, splitCells } from './table-cells';

const kindOf = (header: string) => classifyHeader(splitCells(header).map(headerName));

describe('splitCells', () => {
  it.each([
    ['| a | b |', ['a', 'b']],
    ['a | b', ['a', 'b']],
    ['| a \\| b | c |', ['a | b', 'c']],
    ['| `x \\|\\| y` |', ['`x || y`']],
    ['| 502|503 | c |', ['502', '503', 'c']],
    ['|  | b |', ['', 'b']],
    ['| a | b \\|', ['a', 'b |']],
    ['|', ['']],
  ])('%j → %j', (line, cells) => {
    expect(splitCells(line)).toEqual(cells);
  });
});

describe('isDelimiterRow', () => {
  it.each(['|---|---|', '| :--- | :-: | --: |', '|-|', ' | --- | --- | ', '---|---'])('%j is a delimiter row', (s) => expect(isDelimiterRow(s)).toBe(true));
  it.each(['---', '| --- | x |', '| | |', '| :: |', 'prose'])('%j is not', (s) => expect(isDelimiterRow(s)).toBe(false));
});

describe('classifyHeader', () => {
  it.each([
    ['| ID | Sev | Category | Where | Finding |', 'finding', { id: 0, severity: 1, category: 2, where: 3, text: 4 }],
    ['| id | severity | category | where (file:line) | finding |', 'finding', { id: 0, severity: 1, category: 2, where: 3, text: 4 }],
    ['| **ID** | **Severity** | **A2 category** | **File:line** | **Description** |', 'finding', { id: 0, severity: 1, category: 2, where: 3, text: 4 }],
    ['| R-### | P | Area | Location | Title | Finding |', 'finding', { id: 0, severity: 1, category: 2, where: 3, text: 5 }],
    ['| ID | Status | Sev | Where | Finding |', 'finding', { id: 0, severity: 2, where: 3, text: 4 }],
    ['| ID | Findings | Sev | Acceptance |', 'backlog', { id: 0, refs: 1, severity: 2, acceptance: 3 }],
    ['| REL-### | Title | Covers | Priority | Fault-injection acceptance criteria |', 'backlog', { id: 0, refs: 2, severity: 3, acceptance: 4 }],
    ['| Backlog ID | R-ids | Severity |', 'backlog', { id: 0, refs: 1, severity: 2 }],
    ['| ID | Date | Outcome | Red/Green | Gates | Notes |', 'outcome', { id: 0, date: 1, outcome: 2, redGreen: 3, note: 5 }],
    ['| REL | Date | Status | Red | Green | Root-cause hypothesis |', 'outcome', { id: 0, date: 1, outcome: 2, red: 3, green: 4, note: 5 }],
    ['| Task | Date | Status | Gate runs | First gate | Deviations | Notes | Model |', 'task', { task: 0, date: 1, status: 2, gateRuns: 3, firstGate: 4, deviations: 5, note: 6, model: 7 }],
    ['| task | status | notes |', 'task', { task: 0, status: 1, note: 2 }],
    ['| # | Finding | Severity | Fault |', 'review-finding', { number: 0, text: 1, severity: 2, fault: 3 }],
    ['| Host | Slots | Ctx |', 'other', {}],
    ['| ID | Notes |', 'other', {}],
  ])('%s → %s', (header, kind, cols) => {
    expect(kindOf(header)).toEqual({ kind, cols });
  });
});

describe('severityAsWritten', () => {
  it.each([
    ['P1 (contested: P0)', 'P1 (contested: P0)'],
    ['contested  P2', 'contested P2'],
    ['High', 'High'],
    ['P1', null],
    ['p1', null],
    ['**P0**', null],
    [' P3 ', null],
    ['', null],
    [null, null],
  ])('%j → %j', (cell, want) => {
    expect(severityAsWritten(cell)).toBe(want);
  });
});

describe('normalizeSeverity', () => {
  it.each([
    ['P1', 'P1'],
    ['p1', 'P1'],
    ['**P0**', 'P0'],
    ['P1 (contested: P0)', 'P1'],
    ['contested P2', 'P2'],
    ['P4', null],
    ['HP1', null],
    ['P10', null],
    ['High', null],
    ['', null],
    [null, null],
  ])('%j → %j', (cell, sev) => expect(normalizeSeverity(cell)).toBe(sev));
});

describe('idsIn', () => {
  it('finds R ids, not the R inside REL ids, without duplicates, ranges not expanded', () => {
    expect(idsIn('R-140 (writer half of R-125); see REL-053, R-140, R-084…R-090, R-###, XR-9', 'R')).toEqual(['R-140', 'R-125', 'R-084', 'R-090']);
    expect(idsIn('**REL-021b** remainder, REL-7, REL-abc', 'REL')).toEqual(['REL-021b', 'REL-7']);
  });
});

describe('redGreen', () => {
  it.each([
    ['1/1', 1, 1],
    ['red 3 green 3', 3, 3],
    ['red=2 green=5', 2, 5],
    ['4 red, 4 green', 4, 4],
    ['red: 1', 1, null],
    ['3 → 3', 3, 3],
    ['covered 2/3', 2, 3],
    ['—', null, null],
    [null, null, null],
  ])('%j → red %j green %j', (cell, red, green) => expect(redGreen(cell)).toEqual({ red, green }));
});
