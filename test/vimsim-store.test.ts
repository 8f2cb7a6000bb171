/**
 * The simulator's state store on a real SQLite file: events leave the state
 * document for a capped log, a failed transaction leaves neither state nor
 * events behind, a save that cannot commit loses no events, everything
 * survives reopening, and a state.json of an earlier version is taken over.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import path from 'node:path';
import { emptyState, type EventRecord, type StackRecord } from '../vimsim/state/model';
import { setStackStatus } from '../vimsim/state/status';
import { MAX_EVENTS_PER_STACK, StateStore } from '../vimsim/state/store';
import { tempDataDir } from './vimsim-helpers';

const stackRecord = (id: string, events: EventRecord[] = []): StackRecord => ({
  id, name: `s-${id}`, projectId: 'p', description: '', rootId: id, action: 'CREATE', status: 'COMPLETE', reason: '',
  template: {}, files: {}, environment: { parameters: {}, parameter_defaults: {}, resource_registry: {} },
  userParams: {}, params: {}, paramTypes: {}, outputs: [], resources: [], events, disableRollback: true, createdAt: 'then',
});
const touch = (stack: StackRecord, times: number) => {
  for (let i = 0; i < times; i++) setStackStatus(stack, 'UPDATE', i % 2 ? 'COMPLETE' : 'IN_PROGRESS', `change ${i}`, 'now');
};

test('events move to the log on save, are capped per stack, and survive reopening', () => {
  const dir = tempDataDir();
  const store = StateStore.open(dir);
  store.transaction(() => {
    store.data.stacks.a = stackRecord('a');
    store.data.stacks.b = stackRecord('b');
    touch(store.data.stacks.a, 3);
  });
  expect(store.data.stacks.a.events).toEqual([]); // the document no longer carries them
  const first = store.eventsOf(['a']);
  expect(first.map((e) => e.event.reason)).toEqual(['change 0', 'change 1', 'change 2']);

  for (let i = 0; i < 13; i++) store.transaction(() => touch(store.data.stacks.a, 100));
  const kept = store.eventsOf(['a']);
  expect(kept.length).toBeGreaterThanOrEqual(MAX_EVENTS_PER_STACK);
  expect(kept.length).toBeLessThan(3 + 1300);
  expect(kept[kept.length - 1].event.reason).toBe('change 99'); // the newest stay, the oldest go
  expect(kept.filter((e) => first.some((f) => f.event.id === e.event.id))).toEqual([]);
  store.close();

  const again = StateStore.open(dir);
  expect(Object.keys(again.data.stacks).sort()).toEqual(['a', 'b']);
  expect(again.eventsOf(['a', 'b']).map((e) => e.event.id)).toEqual(kept.map((e) => e.event.id));
  again.close();
});

test('a failed transaction leaves the state and the event log as they were', () => {
  const store = StateStore.open(tempDataDir());
  store.transaction(() => {
    store.data.stacks.a = stackRecord('a');
    touch(store.data.stacks.a, 1);
  });
  const before = JSON.stringify(store.data);
  expect(() => store.transaction(() => {
    store.data.stacks.x = stackRecord('x');
    touch(store.data.stacks.a, 5);
    store.data.network.externalUsed['127.20.0.9'] = 'port-x';
    throw new Error('rejected');
  })).toThrow('rejected');
  expect(JSON.stringify(store.data)).toBe(before);
  store.save();
  expect(store.eventsOf(['a', 'x'])).toHaveLength(1);
  store.close();
});

test('a state.json of an earlier version is taken over, events included', () => {
  const dir = tempDataDir();
  const old = emptyState();
  old.stacks.a = stackRecord('a', [{ id: 'e1', time: 't', resourceName: 's-a', physicalId: 'a', resourceType: 'OS::Heat::Stack', action: 'CREATE', status: 'COMPLETE', reason: 'old' }]);
  fs.writeFileSync(path.join(dir, 'state.json'), JSON.stringify(old));
  const store = StateStore.open(dir);
  expect(store.data.stacks.a.name).toBe('s-a');
  expect(store.eventsOf(['a']).map((e) => e.event.id)).toEqual(['e1']);
  store.close();
});

test('a change that leaves no event is saved when the caller names the stack; reopening gives back the same state', () => {
  const dir = tempDataDir();
  const store = StateStore.open(dir);
  store.transaction(() => {
    store.data.stacks.a = stackRecord('a');
    store.data.stacks.n = { ...stackRecord('n'), rootId: 'a', parentId: 'a' };
    store.data.stacks.b = stackRecord('b');
  });
  store.data.stacks.n.userParams = { hostKey: 'added later' }; // e.g. the SSH side giving a server its host key
  store.save(['n']);
  touch(store.data.stacks.b, 1);
  store.save();
  const memory = JSON.stringify(store.data);
  store.close();
  const again = StateStore.open(dir);
  expect(again.data.stacks.n.userParams).toEqual({ hostKey: 'added later' });
  expect(JSON.stringify(again.data)).toBe(memory);
  again.close();
});

test('events of a save that could not commit are logged by the next one', () => {
  const dir = tempDataDir();
  const store = StateStore.open(dir);
  store.transaction(() => { store.data.stacks.a = stackRecord('a'); });
  // A second connection makes every event insert fail, as a full disk would.
  const other = new Database(path.join(dir, 'state.db'));
  other.exec("CREATE TRIGGER refuse_events BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'disk full'); END");
  touch(store.data.stacks.a, 2); // e.g. a stack's progress timer, saving outside any request
  expect(() => store.save()).toThrow('disk full');
  expect(store.eventsOf(['a'])).toEqual([]);

  other.exec('DROP TRIGGER refuse_events');
  other.close();
  touch(store.data.stacks.a, 1);
  store.save();
  expect(store.eventsOf(['a']).map((e) => e.event.reason)).toEqual(['change 0', 'change 1', 'change 0']);
  store.close();
});
