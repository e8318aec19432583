import { describe, expect, it } from 'vitest';
import { MAX_TIED_RESULT_IDS } from './state.ts';
import { at, degrade, emitted, fail, given, pass, replay, runBased } from './testing.ts';

const scenario = { settings: runBased(1) };
const idOf = (n: number) => `7c1e2a3b-4d5e-4f60-8a7b-${n.toString(16).padStart(12, '0')}`;

describe('duplicates and out-of-order results', () => {
  it('given a result that sent ALERT_FAILURE, when it is delivered again, then no alert and the state is unchanged', () => {
    const failure = fail(0);
    const history = given(scenario, [failure]);

    const again = history.when(failure);

    expect(history.historyLabels).toEqual(['ALERT_FAILURE']);
    expect(again.alerts).toEqual([]);
    expect(again.state).toBe(history.state);
  });

  it('given a recovery was sent, when the recovering result is redelivered after more results, then no second ALERT_RECOVERY', () => {
    const recovery = pass(1);

    expect(emitted(scenario, [fail(0), recovery, pass(2), recovery])).toEqual(['ALERT_FAILURE', 'ALERT_RECOVERY']);
  });

  it('given a failing check, when an older passing result arrives late, then it is dropped: no ALERT_RECOVERY, state unchanged', () => {
    const history = given(scenario, [fail(0), fail(2)]);

    const late = history.when(pass(1));

    expect(late.alerts).toEqual([]);
    expect(late.state).toBe(history.state);
  });

  it('given a passing check, when an older failing result arrives late, then no ALERT_FAILURE', () => {
    expect(emitted(scenario, [pass(5), fail(3)])).toEqual([]);
  });

  it('given two locations reporting the same millisecond, when both arrive, then both are applied', () => {
    const eu = fail(0, { id: idOf(1), runLocation: 'eu-west-1' });
    const us = fail(0, { id: idOf(2), runLocation: 'us-east-1' });

    const perStep = replay({ settings: runBased(2) }, [eu, us]);

    expect(perStep).toEqual([[], ['ALERT_FAILURE']]);
  });

  it('given two tied results applied, when the first is redelivered, then it is recognised as a duplicate', () => {
    const first = fail(0, { id: idOf(1) });
    const second = degrade(0, { id: idOf(2) });

    expect(emitted({ settings: runBased(1) }, [first, second, first, second])).toEqual([
      'ALERT_FAILURE',
      'ALERT_DEGRADED',
    ]);
  });

  it('given a newer result applied, when a result from one millisecond earlier arrives, then it is dropped', () => {
    const history = given(scenario, [pass(1)]);
    const earlier = fail(0, { startedAt: new Date(Date.parse(at(1)) - 1).toISOString() });

    expect(history.when(earlier).alerts).toEqual([]);
  });

  it('given results, when applied, then the state remembers the newest startedAt and only the ids tied to it', () => {
    const history = given(scenario, [pass(0), pass(1, { id: idOf(1) }), pass(1, { id: idOf(2) })]);

    expect(history.state.last).toEqual({ startedAt: at(1), ids: [idOf(1), idOf(2)] });
  });

  it(`given more than ${MAX_TIED_RESULT_IDS} results tied on one millisecond, when applied, then only the newest ${MAX_TIED_RESULT_IDS} ids are kept`, () => {
    const tied = Array.from({ length: MAX_TIED_RESULT_IDS + 5 }, (_, i) => pass(0, { id: idOf(i) }));

    const { state } = given(scenario, tied);

    expect(state.last?.ids).toHaveLength(MAX_TIED_RESULT_IDS);
    expect(state.last?.ids[0]).toBe(idOf(5));
  });

  it('given a replay of a whole history on top of its own final state, when applied, then nothing is sent again', () => {
    const history = [fail(0), fail(1), pass(2), degrade(3), pass(4)];
    const first = given(scenario, history);

    expect(first.historyLabels).toEqual([
      'ALERT_FAILURE',
      'ALERT_RECOVERY',
      'ALERT_DEGRADED',
      'ALERT_DEGRADED_RECOVERY',
    ]);
    expect(emitted({ ...scenario, state: first.state }, history)).toEqual([]);
  });
});
