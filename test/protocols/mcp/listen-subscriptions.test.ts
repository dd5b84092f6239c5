/**
 * 2026-07-28's listen subscriptions of one stdio session (listen-subscriptions.ts), in process: each
 * notification judged by the subscription it names; one only a listen stream carries, without a name,
 * is a finding, which rule by whether a listen is open; a subscription that ended judges nothing more.
 */
import { describe, expect, it } from 'vitest';
import { ListenSubscriptions } from '../../../src/protocols/mcp/listen-subscriptions.js';

const named = (method: string, id?: string) => ({ jsonrpc: '2.0', method, params: id === undefined ? {} : { _meta: { 'io.modelcontextprotocol/subscriptionId': id } } });
const rules = (listens: ListenSubscriptions, method: string, id?: string) => listens.notification(method, named(method, id)).map((f) => f.rule);

describe('ListenSubscriptions', () => {
  it('says which rule a notification without a subscription breaks, by whether a listen is open', () => {
    const listens = new ListenSubscriptions();
    expect(rules(listens, 'notifications/tools/list_changed')).toEqual(['mcp-listen-not-requested']);
    // Progress and log messages belong to requests, not subscriptions.
    expect(rules(listens, 'notifications/progress')).toEqual([]);
    listens.request({ jsonrpc: '2.0', id: 'l', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } });
    expect(rules(listens, 'notifications/tools/list_changed')).toEqual(['mcp-listen-subscription-id']);
    expect(rules(listens, 'notifications/subscriptions/acknowledged', 'l')).toEqual([]);
    expect(rules(listens, 'notifications/tools/list_changed', 'l')).toEqual([]);
    expect(rules(listens, 'notifications/prompts/list_changed', 'l')).toEqual(['mcp-listen-not-requested']);
  });

  it('judges nothing more of a subscription that ended, and knows its listen owes no answer', () => {
    const listens = new ListenSubscriptions();
    listens.request({ jsonrpc: '2.0', id: 7, method: 'subscriptions/listen', params: {} });
    expect(listens.cancelled(7)).toBe(true);
    expect(listens.cancelled('7')).toBe(false);
    expect(listens.notification('notifications/prompts/list_changed', { jsonrpc: '2.0', method: 'notifications/prompts/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 7 } } })).toEqual([]);
    expect(listens.response(7, { jsonrpc: '2.0', id: 7, result: { resultType: 'complete' } })).toEqual([]);
    expect(listens.isListen('client', 7)).toBe(true);
    expect(listens.isListen('server', 7)).toBe(false);
  });
});
