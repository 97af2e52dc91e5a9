/* The judge's live protocol (Telegram Mini App). Plain JavaScript, no build step.
 *
 * The server keeps the protocol (scoring/protocol.py); this page sends its commands
 * and shows the server's `view`. What the page offers (modes, seats to tap, chips,
 * buttons) is what the view's `allowed` says the protocol would accept now: the page
 * holds no rule of its own. A tap is queued (localStorage, with its client id) and
 * sent; where the last view allowed it, it shows at once on a copy of the view (as the
 * command itself says: a foul more, a seat nominated), and the server's answer
 * replaces the view. Commands made offline wait in the queue and go in order, each
 * once (the server skips an id it has stored), when the connection returns. Every
 * word on the page comes from the API's `texts`.
 */
(function () {
  'use strict';

  var tg = (window.Telegram && window.Telegram.WebApp) || null;
  var query = new URLSearchParams(location.search);
  var token = query.get('g') || (tg && tg.initDataUnsafe && tg.initDataUnsafe.start_param) || '';
  // The page lives at {base}/app/; the API at {base}/api/live/.
  var base = location.pathname.replace(/\/app(\/.*)?$/, '');
  var api = base + '/api/live/' + encodeURIComponent(token);
  var QUEUE_KEY = 'live-queue:' + token;
  var CACHE_KEY = 'live-state:' + token;
  // A test may speed the speech timer up (window.LIVE_TIMER_SCALE = 0.01).
  var TIMER_SCALE = Number(window.LIVE_TIMER_SCALE) || 1;
  var RETRY_MS = Number(window.LIVE_RETRY_MS) || 3000;
  // The roles command's seats, in the order the judge taps them.
  var ROLE_ORDER = ['sheriff', 'don', 'mafia', 'mafia'];

  var S = {
    data: null,          // the last GET answer: players, texts, saved, ...
    view: null,          // the server's view (its `allowed`: what the protocol accepts now)
    queue: loadQueue(),  // [{id, command}] not yet applied by the server
    sending: false,
    offline: false,
    fatal: null,         // an auth refusal or a missing draft: the page stops there
    review: null,
    ui: {
      tab: 'table', mode: null, picks: [], showRoles: false, speaker: null, speakerDay: 0,
      voting: false, voteRound: null, votes: {}, lastVote: null, seat: null
    },
    timer: { total: 60, left: 60, running: false, at: 0, warned: false }
  };

  // ------------------------------------------------------------------ small helpers

  // The server's words (`texts`, its gettext catalog) by key; the page's other phrases
  // are made of them (and of numbers and signs) until the server names them itself.
  function word(key) {
    var texts = (S.data && S.data.texts) || {};
    return Object.prototype.hasOwnProperty.call(texts, key) ? String(texts[key]) : null;
  }

  function W(key) { var w = word(key); return w === null ? key : w; }

  var TAP = '👆 ';
  var PHRASES = {
    day_n: function (p) { return W('day') + ' ' + p.n; },
    night_n: function (p) { return W('night') + ' ' + p.n; },
    round_table: function (p) { return 'R' + p.round + '-T' + p.table; },
    step_speeches: 'speeches', step_voting: 'voting', step_shot: 'shot',
    step_checks: function () { return W('shot') + ' ✓'; },
    step_shoot: 'shot', step_don_check: 'don_check', step_sheriff_check: 'sheriff_check',
    role_civilian: 'civilian', role_sheriff: 'sheriff', role_mafia: 'mafia', role_don: 'don',
    show_roles: function () { return '👁 ' + W('roles'); },
    hide_roles: function () { return '🙈 ' + W('roles'); },
    out_voted: 'vote_out', out_shot: 'shot',
    out_fouls: function () { return W('out') + ' · 4 ⚠'; },
    out_disqualified: function () { return W('out') + ' 🟥'; },
    pick_sheriff: function () { return TAP + W('sheriff'); },
    pick_don: function () { return TAP + W('don'); },
    pick_mafia: function () { return TAP + W('mafia'); },
    tap_nominate: function () { return TAP + W('nominate'); },
    tap_foul: function () { return TAP + W('foul'); },
    tap_shoot: function () { return TAP + W('shot'); },
    tap_don_check: function () { return TAP + W('don_check'); },
    tap_sheriff_check: function () { return TAP + W('sheriff_check'); },
    tap_dq: function () { return TAP + W('disqualify'); },
    tap_penalty: function () { return TAP + W('penalty'); },
    tap_extra: function () { return TAP + W('judge_points'); },
    over_red: 'red_win', over_black: 'black_win',
    change_roles: 'roles',
    speaker: function (p) { return W('seat') + ' ' + p.seat; },
    to_voting: 'voting', record_votes: 'vote', back_to_speeches: 'speeches',
    votes_rest: function (p) { return '= ' + p.n; },
    vote_out: function (p) { return W('vote_out') + ': ' + p.seats; },
    nobody_out: function () { return W('vote_out') + ': —'; },
    lift_all: function (p) { return W('vote_out') + ': ' + p.seats; },
    revote: function (p) { return '↻ ' + W('vote') + ': ' + p.seats; },
    answer_sheriff: 'is_sheriff', answer_not_sheriff: 'not_sheriff',
    answer_red: 'red', answer_black: 'black',
    don_checked: function (p) { return W('don_check') + ': ' + p.seat; },
    sheriff_checked: function (p) { return W('sheriff_check') + ': ' + p.seat; },
    best_move_of: function (p) { return W('best_move') + ': ' + p.seat + ' ' + p.nick; },
    best_move_end: function () { return '⏹ ' + W('best_move'); },
    best_move_hint: 'hint',
    best_move_none: function () { return W('best_move') + ': —'; },
    result_red: 'red_win', result_black: 'black_win', result_draw: 'draw',
    penalties: 'penalty', extras: 'judge_points',
    saved_as: function (p) { return W('saved') + ': ' + p.code; },
    pending: function (p) { return String(p.n); },
    tab_table: 'live_protocol', tab_outcome: 'result',
    penalty_n: function (p) { return W('penalty') + ' ' + p.rule; },
    extra_n: function (p) { return W('judge_points') + ' ' + p.points; }
  };

  function T(key, params) {
    var text = word(key);
    if (text === null) {
      var phrase = PHRASES[key];
      text = typeof phrase === 'function' ? phrase(params || {}) : W(phrase || key);
    }
    text = text.charAt(0).toUpperCase() + text.slice(1);
    return text.replace(/\{(\w+)\}/g, function (all, name) {
      return params && params[name] !== undefined ? params[name] : all;
    });
  }

  function esc(value) {
    return String(value).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }

  function uuid() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return (b + 256).toString(16).slice(1);
    }).join('');
  }

  function loadQueue() {
    try { return JSON.parse(localStorage.getItem(QUEUE_KEY) || '[]') || []; }
    catch (e) { return []; }
  }

  function storeQueue() {
    try {
      if (S.queue.length) localStorage.setItem(QUEUE_KEY, JSON.stringify(S.queue));
      else localStorage.removeItem(QUEUE_KEY);
    } catch (e) { /* private mode: the queue lives as long as the page */ }
  }

  function haptic(kind) {
    var h = tg && tg.HapticFeedback;
    if (!h) return;
    try {
      if (kind === 'warning' || kind === 'error' || kind === 'success') h.notificationOccurred(kind);
      else h.impactOccurred(kind || 'light');
    } catch (e) { /* older clients */ }
  }

  function headers() {
    return { 'Content-Type': 'application/json', 'X-Telegram-Init-Data': (tg && tg.initData) || '' };
  }

  function toast(text, kind) {
    var el = document.getElementById('toast');
    el.textContent = text;
    el.className = kind || 'error';
    el.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(function () { el.hidden = true; }, 6000);
  }

  function clone(value) { return JSON.parse(JSON.stringify(value)); }

  function nick(seat) {
    var players = (S.data && S.data.players) || [];
    for (var i = 0; i < players.length; i++) if (players[i].seat === seat) return players[i].nickname;
    return '';
  }

  // ------------------------------------------------------------------ what may be done

  function has(list, item) { return Array.isArray(list) && list.indexOf(item) >= 0; }

  // A map of the view keyed by seat (JSON's keys are strings).
  function bySeat(map, seat) {
    return map && Object.prototype.hasOwnProperty.call(map, String(seat)) ? map[String(seat)] : null;
  }

  function allowedOf(view) { return (view && view.allowed) || {}; }

  // Whether the view's `allowed` (scoring/protocol.py, `allowed`) offers command `c`.
  function offered(a, c) {
    var seat = c.seat;
    switch (c.type) {
      case 'roles': return !!a.roles;
      case 'foul': case 'disqualify': case 'undisqualify': return has(a[c.type], seat);
      case 'nominate': return has(bySeat(a.nominate, c.by), seat);
      case 'vote':
        if (!a.vote) return false;
        var total = 0;
        return Object.keys(c.votes).every(function (n) {
          total += c.votes[n];
          return has(a.vote.seats, Number(n));
        }) && total <= a.vote.most;
      case 'vote_out':
        if (!a.vote_out) return false;
        if (!c.seats.length) return !!a.vote_out.nobody;
        return c.seats.every(function (n) { return has(a.vote_out.seats, n); });
      case 'shoot':
        if (!a.shoot) return false;
        return seat === null ? !!a.shoot.miss : has(a.shoot.seats, seat);
      case 'don_check': case 'sheriff_check': return !!bySeat(a[c.type], seat);
      case 'end_night': case 'undo': return !!a[c.type];
      case 'best_move': return !!a.best_move && has(a.best_move.seats, seat);
      case 'best_move_end': return !!a.best_move && !!a.best_move.end;
      case 'best_move_hint': return !!a.best_move && !!a.best_move.hint;
      case 'result': return has(a.result, c.result);
      case 'penalty': case 'unpenalty': return has(bySeat(a[c.type], seat), c.rule);
      case 'extra': return has((bySeat(a.extra, seat) || {}).values, c.hundredths);
      default: return false;
    }
  }

  // ------------------------------------------------------------------ the shown state

  // The server's view with the queued commands the view allowed shown on a copy of it.
  function shown() {
    var view = clone(S.view);
    var a = allowedOf(S.view);
    S.queue.forEach(function (e) { if (offered(a, e.command)) mark(view, e.command, a); });
    return view;
  }

  // A command on the copy, as the command itself says it (and the check's answer as the
  // view's `allowed` gave it); what it leads to (a player out by his 4th foul, the
  // night, the game over) shows when the server answers. The rest waits for it too.
  function mark(view, c, a) {
    var seat = c.seat ? view.seats[c.seat - 1] : null;
    var key = String(c.seat);
    switch (c.type) {
      case 'roles':
        view.seats.forEach(function (s) { s.role = 'civilian'; });
        view.seats[c.sheriff - 1].role = 'sheriff';
        view.seats[c.don - 1].role = 'don';
        c.mafia.forEach(function (m) { view.seats[m - 1].role = 'mafia'; });
        break;
      case 'foul': seat.fouls += 1; break;
      case 'nominate':
        seat.nominated = true;
        view.nominations.push([c.seat, c.by]);
        break;
      case 'vote': view.votes = c.votes; break;
      case 'shoot': view.shot = c.seat; view.phase.step = 'checks'; break;
      case 'don_check':
        view.checks.don = { seat: c.seat, sheriff: bySeat(a.don_check, c.seat).sheriff };
        break;
      case 'sheriff_check':
        view.checks.sheriff = { seat: c.seat, black: bySeat(a.sheriff_check, c.seat).black };
        break;
      case 'disqualify':
        view.dq.push(c.seat);
        seat.alive = false;
        seat.out = seat.out || 'disqualified';
        break;
      case 'result': view.result = c.result; break;
      case 'best_move': view.best_move.seats.push(c.seat); break;
      case 'best_move_end': view.best_move.final = true; break;
      case 'best_move_hint': view.best_move.hint = c.on !== false; break;
      case 'penalty': view.penalties[key] = (view.penalties[key] || []).concat([c.rule]); break;
      case 'unpenalty':
        view.penalties[key] = (view.penalties[key] || []).filter(function (r) { return r !== c.rule; });
        break;
      case 'extra':
        if (c.hundredths) view.extras[key] = c.hundredths;
        else delete view.extras[key];
        break;
      default: break;  // vote_out, end_night, undisqualify, undo: the server's answer shows them
    }
  }

  // ------------------------------------------------------------------ the server

  function request(method, path, body) {
    return fetch(api + path, {
      method: method, headers: headers(), cache: 'no-store',
      body: body === undefined ? undefined : JSON.stringify(body)
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (json) {
        return { status: r.status, body: json };
      });
    });
  }

  function refusedBy(answer) {
    var text = (answer.body && answer.body.error) || String(answer.status);
    if (answer.status === 401 || answer.status === 403 || answer.status === 404) {
      S.fatal = text;
      S.queue = [];
      storeQueue();
      render();
      return true;
    }
    return false;
  }

  function accept(data) {
    S.data = data;
    S.view = data.view;
    var stored = {};
    (data.events || []).forEach(function (e) { stored[e.id] = 1; });
    // A reload after the server took some of the queue: those are done.
    S.queue = S.queue.filter(function (e) { return !stored[e.id]; });
    storeQueue();
    try { localStorage.setItem(CACHE_KEY, JSON.stringify(data)); } catch (e) { /* full */ }
  }

  function load() {
    return request('GET', '').then(function (answer) {
      if (refusedBy(answer)) return;
      if (answer.status !== 200) { toast(answer.body.error || String(answer.status)); return; }
      S.offline = false;
      accept(answer.body);
      if (tg && tg.ready) tg.ready();
      render();
      flush();
    }, function () {
      // Offline at start: show the state this device saw last, keep the queue.
      S.offline = true;
      var cached = null;
      try { cached = JSON.parse(localStorage.getItem(CACHE_KEY) || 'null'); } catch (e) { /* none */ }
      if (cached && !S.data) accept(cached);
      render();
      setTimeout(load, RETRY_MS);
    });
  }

  function send(command) {
    if (S.data && S.data.saved) return;
    S.queue.push({ id: uuid(), command: command });
    storeQueue();
    haptic('light');
    render();
    flush();
  }

  function flush() {
    if (S.sending || !S.queue.length || S.fatal || !S.data) return;
    S.sending = true;
    var batch = S.queue.slice();
    request('POST', '/events', { events: batch }).then(function (answer) {
      S.sending = false;
      S.offline = false;
      if (refusedBy(answer)) return;
      var body = answer.body || {};
      if (answer.status === 409) {
        // Nothing of the batch was taken (saved meanwhile, or an id stored with another
        // command): the judge reads why, and the page shows the server's protocol again.
        S.queue = []; storeQueue(); haptic('error'); toast(body.error || String(answer.status));
        return load();
      }
      if (answer.status !== 200) {
        S.queue = []; storeQueue(); toast(body.error || String(answer.status)); return load();
      }
      var applied = {};
      (body.applied || []).forEach(function (id) { applied[id] = 1; });
      S.queue = S.queue.filter(function (e) { return !applied[e.id]; });
      if (body.refused) {
        // Back to the server's state: the refused command and those made on top of it go.
        S.queue = [];
        haptic('error');
        // The federation's rule number (8.x) helps a judge; the team's own ids (D1-D17) don't.
        toast(body.refused.text + (/^[0-9]/.test(body.refused.rule || '')
          ? ' (' + body.refused.rule + ')' : ''));
      }
      storeQueue();
      if (body.view) S.view = body.view;
      if (body.version !== undefined && S.data) S.data.version = body.version;
      afterServer();
      render();
      if (S.queue.length) flush();
    }, function () {
      // No answer: the queue stays and goes again (the interval below, or `online`).
      S.sending = false;
      if (!S.offline) { S.offline = true; render(); }
    });
  }

  function afterServer() {
    var v = S.view;
    if (!v) return;
    if (v.over && S.ui.tab === 'table' && !afterServer.switched) {
      afterServer.switched = true;
      S.ui.tab = 'outcome';
      S.ui.mode = null;
    }
  }

  window.addEventListener('online', function () { S.offline = false; if (!S.data) load(); else flush(); });

  // ------------------------------------------------------------------ the timer

  function timerLeft() {
    var t = S.timer;
    if (!t.running) return t.left;
    return Math.max(0, t.left - (performance.now() - t.at) / 1000 / TIMER_SCALE);
  }

  function timerSet(total, start) {
    S.timer = { total: total, left: total, running: !!start, at: performance.now(), warned: false };
    tick();
  }

  function timerToggle() {
    var t = S.timer;
    if (t.running) { t.left = timerLeft(); t.running = false; }
    else {
      if (t.left <= 0) t.left = t.total;
      t.running = true;
      t.at = performance.now();
    }
    tick();
  }

  function tick() {
    var t = S.timer;
    var left = timerLeft();
    if (t.running && left <= 10 && !t.warned) { t.warned = true; haptic('warning'); }
    if (t.running && left <= 0) { t.running = false; t.left = 0; haptic('heavy'); }
    var el = document.getElementById('clock');
    if (el) {
      var s = Math.ceil(left);
      el.textContent = Math.floor(s / 60) + ':' + ('0' + (s % 60)).slice(-2);
      el.className = 'clock' + (s <= 10 ? ' low' : '') + (t.running ? ' running' : '');
    }
    var toggle = document.getElementById('clock-toggle');
    if (toggle) {
      toggle.textContent = t.running ? '⏸' : '▶';
      toggle.title = t.running ? T('timer_pause') : T('timer_start');
      toggle.setAttribute('aria-label', toggle.title);
    }
  }

  setInterval(function () { if (S.timer.running) tick(); }, 100 * Math.min(1, TIMER_SCALE * 10));

  // ------------------------------------------------------------------ what is shown

  function btn(act, label, arg, cls, disabled) {
    return '<button type="button" data-act="' + act + '"' +
      (arg === undefined || arg === null ? '' : ' data-arg="' + esc(arg) + '"') +
      ' class="' + (cls || '') + '"' + (disabled ? ' disabled' : '') + '>' + label + '</button>';
  }

  function rolesKnown(view) { return view.seats.some(function (s) { return s.role; }); }

  function roleMark(role) {
    if (!role) return '';
    return '<span class="role ' + role + '">' + esc(T('role_' + role)) + '</span>';
  }

  function seatOf(view, n) { return view.seats[n - 1]; }

  // The command a seat tap sends in mode `m` (null: the tap picks or chooses a seat).
  function seatCommand(view, m, n) {
    var a = allowedOf(view);
    switch (m) {
      case 'foul': return { type: 'foul', seat: n };
      case 'nominate': return { type: 'nominate', seat: n, by: S.ui.speaker };
      case 'shoot': return { type: 'shoot', seat: n };
      case 'don_check': return { type: 'don_check', seat: n };
      case 'sheriff_check': return { type: 'sheriff_check', seat: n };
      case 'dq': return { type: has(a.undisqualify, n) ? 'undisqualify' : 'disqualify', seat: n };
      default: return null;
    }
  }

  // Whether a seat tap in mode `m` does what the protocol would accept: the seat is a
  // target there (the others are shown dimmed; a tap on one asks the server, which
  // says why not).
  function seatOffered(view, m, n) {
    var a = allowedOf(view);
    if (m === 'roles') return !!a.roles;
    if (m === 'penalty') return penaltyRules(view, n).length > 0;
    if (m === 'extra') return extraValues(view, n).length > 0;
    var command = seatCommand(view, m, n);
    return !!command && offered(a, command);
  }

  // Whether mode `m` has anything to offer now (its button is shown only then).
  function modeOffered(view, m) {
    if (m === 'nominate') return Object.keys(allowedOf(view).nominate || {}).length > 0;
    for (var n = 1; n <= view.seats.length; n++) if (seatOffered(view, m, n)) return true;
    return false;
  }

  // What the view shows recorded tonight: the shot (a miss too) and each check.
  function recorded(view, step) {
    if (step === 'shoot') return view.phase.step === 'checks';
    return !!(view.checks && view.checks[step === 'don_check' ? 'don' : 'sheriff']);
  }

  function defaultMode(view) {
    var a = allowedOf(view);
    if (a.roles && !rolesKnown(view)) return 'roles';
    if (view.phase.kind === 'night') {
      var steps = ['shoot', 'don_check', 'sheriff_check'];
      for (var i = 0; i < steps.length; i++) {
        if (!recorded(view, steps[i]) && modeOffered(view, steps[i])) return steps[i];
      }
      return null;
    }
    return !votingNow(view) && modeOffered(view, 'nominate') ? 'nominate' : null;
  }

  function mode(view) {
    return S.ui.tab === 'outcome' ? S.ui.mode : (S.ui.mode || defaultMode(view));
  }

  function votingNow(view) {
    return view.phase.kind === 'day' && (S.ui.voting || view.phase.step === 'voting');
  }

  function firstSpeaker(view) {
    var start = (view.phase.number - 1) % 10;
    for (var i = 0; i < 10; i++) {
      var s = view.seats[(start + i) % 10];
      if (s.alive) return s.seat;
    }
    return 1;
  }

  function nextAlive(view, seat, step) {
    for (var i = 1; i <= 10; i++) {
      var n = ((seat - 1 + step * i) % 10 + 10) % 10 + 1;
      if (seatOf(view, n).alive) return n;
    }
    return seat;
  }

  function render() {
    var root = document.getElementById('app');
    if (S.fatal) {
      root.innerHTML = '<div class="fatal">⛔ ' + esc(S.fatal) + '</div>';
      return;
    }
    if (!S.data || !S.view) {
      root.innerHTML = '<div class="loading">' + (S.offline ? '⚠ …' : '…') + '</div>';
      return;
    }
    var view = shown();
    var ui = S.ui;
    if (ui.speakerDay !== dayKey(view)) {
      ui.speakerDay = dayKey(view);
      ui.speaker = view.phase.kind === 'day' ? firstSpeaker(view) : null;
      ui.voting = false; ui.voteRound = null; ui.votes = {}; ui.lastVote = null;
      if (ui.tab === 'table') ui.mode = null;
    }
    var m = mode(view);
    if (!render.drawn && window.performance && performance.mark) {
      render.drawn = true;
      performance.mark('live-table');  // bench/page_bench.py: the table is on the screen
    }
    var html = header(view) + status() + banner(view, m) + seats(view, m);
    html += ui.tab === 'table' ? livePanel(view, m) : outcomePanel(view, m);
    root.innerHTML = html;
    tick();
  }

  function dayKey(view) { return view.phase.kind + view.phase.number; }

  function header(view) {
    var d = S.data;
    var phase = view.phase.kind === 'day'
      ? T('day_n', { n: view.phase.number }) : T('night_n', { n: view.phase.number });
    var step = T('step_' + (votingNow(view) ? 'voting' : view.phase.step));
    return '<header><div class="where">' + esc(d.tournament || '') + ' · ' +
      esc(T('round_table', { round: d.round, table: d.table })) + '</div>' +
      (view.over ? '<div class="phase over">' + esc(T('over_' + view.over)) + '</div>'
        : '<div class="phase ' + view.phase.kind + '">' + esc(phase) + ' · ' + esc(step) + '</div>') +
      btn('eye', esc(S.ui.showRoles ? T('hide_roles') : T('show_roles')), null,
        'eye' + (S.ui.showRoles ? ' on' : '')) + tabs() + '</header>';
  }

  function status() {
    var parts = [];
    if (S.data.saved) {
      parts.push('<span class="ok">✅ ' + esc(T('saved_as', { code: S.data.saved.code })) + '</span>');
    }
    if (S.offline) parts.push('<span class="warn">⚠ ' + esc(T('offline')) + '</span>');
    if (S.queue.length) {
      parts.push('<span class="wait" id="pending">⏳ ' +
        esc(T('pending', { n: S.queue.length })) + '</span>');
    }
    return parts.length ? '<div class="status">' + parts.join(' ') + '</div>' : '';
  }

  // What a seat tap does now, in words; and the LARGE answers of the night's checks.
  function banner(view, m) {
    var html = '';
    if (view.phase.kind === 'night' && view.checks && !view.over) {
      var don = view.checks.don;
      var sheriff = view.checks.sheriff;
      if (don) {
        html += '<div class="answer ' + (don.sheriff ? 'yes' : 'no') + '" id="don-answer">' +
          '<small>' + esc(T('don_checked', { seat: don.seat })) + '</small>' +
          esc(don.sheriff ? T('answer_sheriff') : T('answer_not_sheriff')) + '</div>';
      }
      if (sheriff) {
        html += '<div class="answer ' + (sheriff.black ? 'black' : 'red') + '" id="sheriff-answer">' +
          '<small>' + esc(T('sheriff_checked', { seat: sheriff.seat })) + '</small>' +
          esc(sheriff.black ? T('answer_black') : T('answer_red')) + '</div>';
      }
    }
    if (m) {
      var hint = m === 'roles' ? T('pick_' + ROLE_ORDER[S.ui.picks.length]) : T('tap_' + m);
      html += '<div class="hint" id="hint">' + esc(hint) + '</div>';
    }
    return html;
  }

  // Who nominated each seat today, as the view lists it.
  function nominators(view) {
    var found = {};
    (view.nominations || []).forEach(function (pair) { found[pair[0]] = pair[1]; });
    return found;
  }

  function seats(view, m) {
    var noms = nominators(view);
    var target = view.phase.kind === 'night' ? view.shot : null;
    var html = '<ol class="seats' + (m ? ' armed' : '') + '">';
    view.seats.forEach(function (s) {
      var role = S.ui.showRoles ? s.role : null;
      var picked = m === 'roles' ? S.ui.picks.indexOf(s.seat) : -1;
      if (picked >= 0) role = ROLE_ORDER[picked];
      var cls = 'seat' + (s.alive ? '' : ' out') + (s.nominated ? ' nominated' : '') +
        (S.ui.speaker === s.seat && view.phase.kind === 'day' && !view.over ? ' speaking' : '') +
        (S.ui.seat === s.seat ? ' chosen' : '') + (picked >= 0 ? ' picked' : '') +
        (m ? (seatOffered(view, m, s.seat) ? ' can' : ' off') : '');
      var fouls = '';
      for (var i = 0; i < 4; i++) fouls += '<i class="' + (i < s.fouls ? 'f' : '') + '"></i>';
      var tag = '';
      if (s.out) tag = '<span class="tag out-' + s.out + '">' + esc(T('out_' + s.out)) + '</span>';
      else if (target === s.seat) tag = '<span class="tag shot">🎯 ' + esc(T('out_shot')) + '</span>';
      else if (s.nominated) {
        var by = noms[s.seat];
        tag = '<span class="tag nom">' + esc(T('nominated')) + (by ? ' ← ' + by : '') + '</span>';
      }
      html += '<li class="' + cls + '" data-act="seat" data-arg="' + s.seat + '" id="seat-' + s.seat + '">' +
        '<span class="no">' + s.seat + '</span>' +
        '<span class="nick">' + esc(nick(s.seat)) + '</span>' + roleMark(role) + tag +
        '<span class="fouls" title="' + esc(T('fouls')) + '">' + fouls + '</span></li>';
    });
    return html + '</ol>';
  }

  function tools(view, m) {
    var html = '<div class="tools">';
    if (modeOffered(view, 'foul')) {
      html += btn('mode', '⚠ ' + esc(T('foul')), 'foul', m === 'foul' ? 'on' : '');
    }
    if (view.phase.kind === 'day' && !votingNow(view) && modeOffered(view, 'nominate')) {
      html += btn('mode', '☝ ' + esc(T('nominate')), 'nominate', m === 'nominate' ? 'on' : '');
    }
    if (allowedOf(view).roles && rolesKnown(view)) {
      html += btn('mode', esc(T('change_roles')), 'roles', m === 'roles' ? 'on' : '');
    }
    if (modeOffered(view, 'dq')) {
      html += btn('mode', '🟥 ' + esc(T('disqualify')), 'dq', m === 'dq' ? 'on' : '');
    }
    // Undo takes back the last event: the server's, or one still waiting here.
    html += btn('undo', '↶ ' + esc(T('undo')), null, '', !allowedOf(view).undo && !S.queue.length);
    return html + '</div>';
  }

  function livePanel(view, m) {
    var html = tools(view, m);
    if (view.over) {
      return html + '<div class="panel">' + btn('tab', esc(T('tab_outcome')) + ' ▶', 'outcome', 'main') + '</div>';
    }
    if (view.phase.kind === 'night') return html + nightPanel(view, m);
    if (votingNow(view)) return html + votePanel(view);
    return html + speechPanel(view);
  }

  function speechPanel(view) {
    var sp = S.ui.speaker;
    var html = '<div class="panel timer">';
    html += '<div class="speaker">' + btn('speaker', '◀', -1, 'small') +
      '<span id="speaker">' + esc(T('speaker', { seat: sp })) + ' · ' + esc(nick(sp)) + '</span>' +
      btn('speaker', '▶', 1, 'small') + '</div>';
    html += '<div class="clockrow"><span id="clock" class="clock"></span>' +
      btn('clock', '', null, 'main play', false).replace('<button', '<button id="clock-toggle"') +
      btn('timer', '1:00', 60, 'small') + btn('timer', '0:30', 30, 'small') + '</div>';
    html += btn('voting', esc(T('to_voting')) + ' ▶', null, 'wide');
    return html + '</div>';
  }

  // The vote's candidates, in the order they were nominated: those the view lets get votes.
  function candidates(view) {
    var vote = allowedOf(view).vote;
    if (!vote) return [];
    return (view.nominations || []).map(function (pair) { return pair[0]; })
      .filter(function (n) { return has(vote.seats, n); });
  }

  // The most votes there are to give (the view's), and a vote-out button where the
  // view allows it.
  function votes(view) { var vote = allowedOf(view).vote; return vote ? vote.most : 0; }

  function outButton(view, leaving, label, cls) {
    if (!offered(allowedOf(view), { type: 'vote_out', seats: leaving })) return '';
    return btn('out', esc(label), leaving.join(','), cls);
  }

  function votePanel(view) {
    var ui = S.ui;
    var round = ui.voteRound || candidates(view);
    var voters = votes(view);
    var html = '<div class="panel vote">';
    if (ui.lastVote) html += voteDecision(view, ui.lastVote, round);
    else if (round.length > 1) {
      var given = 0;
      round.forEach(function (n, i) {
        var last = i === round.length - 1;
        html += '<div class="candidate"><b>' + n + '</b> ' + esc(nick(n)) + ' ';
        if (last) {
          html += '<span class="rest" id="rest">' + esc(T('votes_rest', { n: Math.max(0, voters - given) })) + '</span>';
        } else {
          html += '<span class="chips">';
          for (var v = 0; v <= voters - given; v++) {
            html += btn('votes', String(v), n + ':' + v, ui.votes[n] === v ? 'chip on' : 'chip');
          }
          html += '</span>';
          given += ui.votes[n] || 0;
        }
        html += '</div>';
      });
      html += btn('cast', esc(T('record_votes')), null, 'main wide');
    } else if (round.length === 1) {
      html += outButton(view, [round[0]], T('vote_out', { seats: round[0] }), 'main');
    }
    html += outButton(view, [], T('nobody_out'), 'wide');
    html += btn('speeches', '◀ ' + esc(T('back_to_speeches')), null, 'small');
    return html + '</div>';
  }

  function voteDecision(view, given, round) {
    var most = -1;
    var leaders = [];
    round.forEach(function (n) {
      var v = given[n] || 0;
      if (v > most) { most = v; leaders = [n]; } else if (v === most) leaders.push(n);
    });
    var html = '<div class="tally">' + round.map(function (n) {
      return '<b>' + n + '</b>: ' + (given[n] || 0);
    }).join(' · ') + '</div>';
    if (leaders.length === 1) {
      return html + outButton(view, leaders, T('vote_out', { seats: leaders[0] }), 'main wide');
    }
    if (S.ui.voteRound === null) html += btn('revote', esc(T('revote', { seats: leaders.join(', ') })), leaders.join(','), 'main wide');
    html += outButton(view, leaders, T('lift_all', { seats: leaders.join(', ') }), 'wide');
    return html;
  }

  function nightPanel(view, m) {
    var a = allowedOf(view);
    var html = '<div class="panel night">';
    html += '<div class="steps">';
    ['shoot', 'don_check', 'sheriff_check'].forEach(function (s) {
      var did = recorded(view, s);
      html += btn('mode', (did ? '✓ ' : '') + esc(T('step_' + s)), s, (m === s ? 'on' : '') + (did ? ' did' : ''),
        did || !modeOffered(view, s));
    });
    html += '</div>';
    if (a.shoot && a.shoot.miss && !recorded(view, 'shoot')) html += btn('miss', esc(T('miss')), null, 'wide');
    html += btn('end_night', esc(T('end_night', { n: view.phase.number + 1 })) + ' ▶', null,
      'main wide', !a.end_night);
    return html + '</div>';
  }

  function outcomePanel(view, m) {
    var a = allowedOf(view);
    var html = '<div class="panel outcome">';
    html += bestMove(view);
    html += '<h3>' + esc(T('result')) + '</h3><div class="row">';
    var results = (a.result || []).slice();
    if (view.result && !has(results, view.result)) results.push(view.result);
    results.forEach(function (r) {
      html += btn('result', esc(T('result_' + r)), r, 'res ' + r + (view.result === r ? ' on' : ''),
        !has(a.result, r));
    });
    html += '</div><div class="row">';
    [['dq', 'disqualify'], ['penalty', 'penalties'], ['extra', 'extras']].forEach(function (tool) {
      if (modeOffered(view, tool[0])) html += btn('mode', esc(T(tool[1])), tool[0], m === tool[0] ? 'on' : '');
    });
    html += '</div>';
    html += seatTool(view, m);
    html += summary(view);
    html += '<div class="row">' + btn('review', esc(T('review')), null, 'wide') +
      btn('save', '💾 ' + esc(T('save')), null, 'main wide', !!S.data.saved) + '</div>';
    if (S.review) html += review();
    if (S.data.public) {
      html += '<p class="public">' + esc(T('public_view')) + ': <a href="' + esc(base + '/live/' + S.data.public) +
        '" target="_blank">' + esc(location.host + base + '/live/' + S.data.public) + '</a></p>';
    }
    return html + '</div>';
  }

  function bestMove(view) {
    var bm = view.best_move || {};
    var a = allowedOf(view).best_move || {};
    var killed = bm.first_killed;
    if (!killed) return '';
    var named = bm.seats || [];
    var html = '<h3>' + esc(T('best_move_of', { seat: killed, nick: nick(killed) })) + '</h3>';
    if (bm.allowed === false) return html + '<p class="hintline">' + esc(T('best_move_none')) + '</p>';
    html += '<ol class="named" id="best-move">';
    named.forEach(function (n) {
      html += '<li><b>' + n + '</b> ' + esc(nick(n)) + ' — <span class="ok">' + esc(T('accepted')) + '</span></li>';
    });
    html += '</ol>';
    if ((a.seats || []).length && !bm.final) {
      html += '<div class="chips ten">';
      for (var n = 1; n <= view.seats.length; n++) {
        html += btn('best', String(n), n, 'chip', !has(a.seats, n) || has(named, n));
      }
      html += '</div>';
    }
    if (a.end && !bm.final) html += '<div class="row">' + btn('best_end', esc(T('best_move_end')), null, '') + '</div>';
    if (a.hint || bm.hint) {
      html += '<div class="row">' + btn('best_hint', esc(T('best_move_hint')), null, bm.hint ? 'on' : '',
        bm.hint || !a.hint) + '</div>';
    }
    return html;
  }

  // The penalties a seat's tool shows: those the view offers to give or take back, and
  // those it has.
  function penaltyRules(view, seat) {
    var a = allowedOf(view);
    var rules = [];
    [bySeat(a.penalty, seat), bySeat(a.unpenalty, seat), penaltiesOf(view, seat)].forEach(function (list) {
      (list || []).forEach(function (r) { if (!has(rules, r)) rules.push(r); });
    });
    return rules.sort();
  }

  // The judge's points a seat's tool offers (hundredths): none when only 0 is.
  function extraValues(view, seat) {
    var values = (bySeat(allowedOf(view).extra, seat) || {}).values || [];
    return values.some(function (h) { return h > 0; }) || extraOf(view, seat) ? values : [];
  }

  function seatTool(view, m) {
    var seat = S.ui.seat;
    if (!seat || (m !== 'penalty' && m !== 'extra')) return '';
    var html = '<div class="seattool"><b>' + seat + '</b> ' + esc(nick(seat)) + '<div class="chips">';
    if (m === 'penalty') {
      penaltyRules(view, seat).forEach(function (rule) {
        var given = has(penaltiesOf(view, seat), rule);
        var type = given ? 'unpenalty' : 'penalty';
        html += btn(type, (given ? '✓ ' : '') + rule, rule, 'chip' + (given ? ' on' : ''),
          !offered(allowedOf(view), { type: type, seat: seat, rule: rule }));
      });
    } else {
      extraValues(view, seat).forEach(function (h) {
        html += btn('extra', h ? (h / 100).toFixed(2) : '0', h, 'chip' + (extraOf(view, seat) === h ? ' on' : ''));
      });
    }
    return html + '</div></div>';
  }

  function penaltiesOf(view, seat) { return bySeat(view.penalties, seat) || []; }

  function extraOf(view, seat) { return bySeat(view.extras, seat) || 0; }

  function summary(view) {
    var lines = [];
    view.seats.forEach(function (s) {
      var bits = [];
      if (s.out === 'disqualified') bits.push(T('out_disqualified'));
      penaltiesOf(view, s.seat).forEach(function (r) { bits.push(T('penalty_n', { rule: r })); });
      var x = extraOf(view, s.seat);
      if (x) bits.push(T('extra_n', { points: (x / 100).toFixed(2) }));
      if (bits.length) lines.push('<li><b>' + s.seat + '</b> ' + esc(nick(s.seat)) + ': ' + esc(bits.join(', ')) + '</li>');
    });
    return lines.length ? '<ul class="summary">' + lines.join('') + '</ul>' : '';
  }

  function review() {
    var r = S.review;
    var html = '<table class="review" id="review"><tr><th>#</th><th></th><th>Σ</th></tr>';
    (r.seats || []).forEach(function (s) {
      html += '<tr data-seat="' + s.seat + '"><td>' + s.seat + '</td><td><span class="nick">' +
        esc(s.nickname) + '</span> <span class="rolename">' + esc(s.role || '') + '</span>' +
        '<div class="parts">' + esc(s.parts || '') + '</div></td><td class="pts">' + esc(s.points) + '</td></tr>';
    });
    html += '</table>';
    if (r.problems && r.problems.length) {
      html += '<ul class="problems" id="problems">' + r.problems.map(function (p) {
        return '<li>' + esc(p) + '</li>';
      }).join('') + '</ul>';
    }
    return html;
  }

  function tabs() {
    return '<nav class="tabs">' +
      btn('tab', esc(T('tab_table')), 'table', S.ui.tab === 'table' ? 'on' : '') +
      btn('tab', esc(T('tab_outcome')), 'outcome', S.ui.tab === 'outcome' ? 'on' : '') + '</nav>';
  }

  // ------------------------------------------------------------------ taps

  function seatTap(n) {
    var view = shown();
    var m = mode(view);
    var ui = S.ui;
    if (!m) return;
    if (m === 'roles') {
      if (ui.picks.indexOf(n) >= 0) { ui.picks = ui.picks.filter(function (x) { return x !== n; }); render(); return; }
      ui.picks.push(n);
      if (ui.picks.length === 4) {
        var p = ui.picks;
        ui.picks = [];
        ui.mode = null;
        send({ type: 'roles', sheriff: p[0], don: p[1], mafia: [p[2], p[3]] });
      } else { haptic('light'); render(); }
      return;
    }
    if (m === 'penalty' || m === 'extra') { ui.seat = n; render(); return; }
    var command = seatCommand(view, m, n);
    if (!command) return;
    if (m === 'foul' || m === 'dq' || view.phase.kind === 'night') ui.mode = null;
    send(command);
  }

  var actions = {
    seat: function (arg) { seatTap(Number(arg)); },
    mode: function (arg) {
      S.ui.mode = S.ui.mode === arg ? null : arg;
      S.ui.picks = [];
      S.ui.seat = null;
      render();
    },
    eye: function () { S.ui.showRoles = !S.ui.showRoles; render(); },
    undo: function () { send({ type: 'undo' }); },
    speaker: function (arg) {
      var view = shown();
      S.ui.speaker = nextAlive(view, S.ui.speaker || 1, Number(arg));
      if (Number(arg) > 0) timerSet(60, true);
      render();
    },
    clock: function () { timerToggle(); },
    timer: function (arg) { timerSet(Number(arg), false); },
    voting: function () { S.ui.voting = true; S.ui.mode = null; S.timer.running = false; render(); },
    speeches: function () { S.ui.voting = false; S.ui.lastVote = null; S.ui.voteRound = null; render(); },
    votes: function (arg) {
      var p = arg.split(':');
      S.ui.votes[Number(p[0])] = Number(p[1]);
      render();
    },
    cast: function () {
      var view = shown();
      var round = S.ui.voteRound || candidates(view);
      var given = 0;
      var voters = votes(view);
      var cast = {};
      round.forEach(function (n, i) {
        var v = i === round.length - 1 ? Math.max(0, voters - given) : (S.ui.votes[n] || 0);
        given += v;
        cast[String(n)] = v;
      });
      S.ui.lastVote = cast;
      S.ui.voteRound = S.ui.voteRound || null;
      S.ui.votes = {};
      send({ type: 'vote', votes: cast });
    },
    revote: function (arg) {
      S.ui.voteRound = arg.split(',').map(Number);
      S.ui.lastVote = null;
      render();
    },
    out: function (arg) {
      var out = arg ? arg.split(',').map(Number) : [];
      send({ type: 'vote_out', seats: out });
    },
    miss: function () { S.ui.mode = null; send({ type: 'shoot', seat: null }); },
    end_night: function () { S.ui.mode = null; send({ type: 'end_night' }); },
    best: function (arg) { send({ type: 'best_move', seat: Number(arg) }); },
    best_end: function () { send({ type: 'best_move_end' }); },
    best_hint: function () { send({ type: 'best_move_hint' }); },
    result: function (arg) { send({ type: 'result', result: arg }); },
    penalty: function (arg) { send({ type: 'penalty', seat: S.ui.seat, rule: arg }); },
    unpenalty: function (arg) { send({ type: 'unpenalty', seat: S.ui.seat, rule: arg }); },
    extra: function (arg) { send({ type: 'extra', seat: S.ui.seat, hundredths: Number(arg) }); },
    tab: function (arg) { S.ui.tab = arg; S.ui.mode = null; S.ui.seat = null; render(); },
    review: function () {
      request('GET', '/review').then(function (answer) {
        if (refusedBy(answer)) return;
        if (answer.status !== 200) { toast(answer.body.error || String(answer.status)); return; }
        S.review = answer.body;
        render();
        var el = document.getElementById('review');
        if (el && el.scrollIntoView) el.scrollIntoView({ block: 'nearest' });
      }, function () { S.offline = true; render(); });
    },
    save: function () {
      if (S.queue.length) { flush(); toast(T('pending', { n: S.queue.length }), 'info'); return; }
      request('POST', '/save').then(function (answer) {
        if (refusedBy(answer)) return;
        if (answer.status === 200) {
          S.data.saved = { game_id: answer.body.game_id, code: answer.body.code };
          haptic('success');
          render();
          return;
        }
        haptic('error');
        toast(answer.body.error || String(answer.status));
      }, function () { S.offline = true; render(); });
    }
  };

  document.addEventListener('click', function (event) {
    var el = event.target.closest('[data-act]');
    if (!el || el.disabled || S.fatal) return;
    document.getElementById('toast').hidden = true;
    var act = actions[el.getAttribute('data-act')];
    if (act) act(el.getAttribute('data-arg') || '');
  });

  // ------------------------------------------------------------------ start

  if (tg) {
    try {
      if (tg.expand) tg.expand();
      var theme = tg.themeParams || {};
      Object.keys(theme).forEach(function (key) {
        document.documentElement.style.setProperty('--tg-theme-' + key.replace(/_/g, '-'), theme[key]);
      });
      if (tg.colorScheme) document.documentElement.setAttribute('data-scheme', tg.colorScheme);
    } catch (e) { /* a partial stand-in */ }
  }
  if (!token) { S.fatal = '?g='; render(); return; }
  render();
  load();
  setInterval(function () { if (S.queue.length && !S.sending) flush(); }, RETRY_MS);
})();
