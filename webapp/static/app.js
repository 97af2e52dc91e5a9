/* The judge's live protocol (Telegram Mini App). Plain JavaScript, no build step.
 *
 * The server keeps the protocol (scoring/protocol.py); this page sends its commands
 * (miniapp-api.md) and shows the server's `view`. A tap shows at once: the command is
 * applied to a copy of the view here, queued (localStorage, with its client id) and
 * sent; the server's answer replaces the view. Commands made offline wait in the queue
 * and go in order, each once (the server skips an id it has stored), when the
 * connection returns. Every word on the page comes from the API's `texts`.
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
  var BLACK = { mafia: 1, don: 1 };
  var ROLE_ORDER = ['sheriff', 'don', 'mafia', 'mafia'];
  var PENALTY_RULES = ['8.5.1', '8.5.2', '8.5.3', '8.5.4'];

  var S = {
    data: null,          // the last GET answer: players, texts, saved, ...
    view: null,          // the server's view
    events: [],          // commands the server has applied, in order
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

  // ------------------------------------------------------------------ the shown state

  // The server's view with the queued commands applied here, for display only.
  function shown() {
    var view = clone(S.view);
    var log = fold([], S.events);
    S.queue.forEach(function (e) {
      view = local(view, e.command, log);
      fold(log, [e.command]);
    });
    return { view: view, log: log };
  }

  // The live commands in force: an undo takes back the last one (as the protocol does).
  var LIVE = { foul: 1, nominate: 1, vote: 1, vote_out: 1, shoot: 1, don_check: 1,
    sheriff_check: 1, end_night: 1, disqualify: 1 };

  function fold(log, commands) {
    commands.forEach(function (c) {
      if (c.type !== 'undo') { log.push(c); return; }
      for (var i = log.length - 1; i >= 0; i--) {
        if (LIVE[log[i].type]) { log.splice(i, 1); return; }
      }
    });
    return log;
  }

  function seatOf(view, n) { return view.seats[n - 1]; }

  function isOver(view) { return !!view.over; }

  // What a command does to the view, as far as the page needs to show it at once.
  function local(view, c, log) {
    var seat = c.seat ? seatOf(view, c.seat) : null;
    var phase = view.phase || (view.phase = { kind: 'day', number: 1, step: 'speeches' });
    switch (c.type) {
      case 'roles':
        view.seats.forEach(function (s) { s.role = 'civilian'; });
        seatOf(view, c.sheriff).role = 'sheriff';
        seatOf(view, c.don).role = 'don';
        c.mafia.forEach(function (m) { seatOf(view, m).role = 'mafia'; });
        break;
      case 'foul':
        seat.fouls += 1;
        if (seat.fouls >= 4) { seat.alive = false; seat.out = 'fouls'; }
        break;
      case 'nominate': seat.nominated = true; break;
      case 'vote': phase.step = 'voting'; break;
      case 'vote_out':
        c.seats.forEach(function (n) { var s = seatOf(view, n); s.alive = false; s.out = 'voted'; });
        view.seats.forEach(function (s) { s.nominated = false; });
        view.phase = { kind: 'night', number: phase.number, step: 'shot' };
        view.checks = { don: null, sheriff: null };
        break;
      case 'shoot': phase.step = 'checks'; break;
      case 'don_check':
        view.checks = view.checks || {};
        view.checks.don = { seat: c.seat, sheriff: seat.role === 'sheriff' };
        break;
      case 'sheriff_check':
        view.checks = view.checks || {};
        view.checks.sheriff = { seat: c.seat, black: !!BLACK[seat.role] };
        break;
      case 'end_night':
        var shot = nightShot(log);
        if (shot) { seatOf(view, shot).alive = false; seatOf(view, shot).out = 'shot'; }
        view.phase = { kind: 'day', number: phase.number + 1, step: 'speeches' };
        view.checks = { don: null, sheriff: null };
        break;
      case 'disqualify': seat.alive = false; seat.out = 'disqualified'; break;
      case 'result': view.result = c.result; break;
      default: break;  // the rest shows when the server answers
    }
    return view;
  }

  // The commands of the current day or night (since the last vote_out / end_night).
  function sincePhase(log) {
    for (var i = log.length - 1; i >= 0; i--) {
      if (log[i].type === 'vote_out' || log[i].type === 'end_night') return log.slice(i + 1);
    }
    return log.slice();
  }

  function nightShot(log) {
    var now = sincePhase(log);
    for (var i = 0; i < now.length; i++) if (now[i].type === 'shoot') return now[i].seat;
    return null;
  }

  function done(log, type) {
    return sincePhase(log).some(function (c) { return c.type === type; });
  }

  function commands(log, type) { return log.filter(function (c) { return c.type === type; }); }

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
    S.events = (data.events || []).map(function (e) { return e.command; });
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
      batch.forEach(function (e) { if (applied[e.id]) S.events.push(e.command); });
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

  function defaultMode(view, log) {
    if (isOver(view)) return null;
    if (!rolesKnown(view) && !commands(log, 'vote_out').length) return 'roles';
    if (view.phase.kind === 'night') {
      if (!done(log, 'shoot')) return 'shoot';
      if (!done(log, 'don_check') && roleAlive(view, 'don')) return 'don_check';
      if (!done(log, 'sheriff_check') && roleAlive(view, 'sheriff')) return 'sheriff_check';
      return null;
    }
    return votingNow(view) ? null : 'nominate';
  }

  function roleAlive(view, role) {
    return view.seats.some(function (s) { return s.role === role && s.alive; });
  }

  function mode(view, log) {
    return S.ui.tab === 'outcome' ? S.ui.mode : (S.ui.mode || defaultMode(view, log));
  }

  function votingNow(view) {
    return view.phase.kind === 'day' && (S.ui.voting || view.phase.step === 'voting');
  }

  function alive(view) { return view.seats.filter(function (s) { return s.alive; }); }

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
    var sv = shown();
    var view = sv.view;
    var log = sv.log;
    var ui = S.ui;
    if (ui.speakerDay !== dayKey(view)) {
      ui.speakerDay = dayKey(view);
      ui.speaker = view.phase.kind === 'day' ? firstSpeaker(view) : null;
      ui.voting = false; ui.voteRound = null; ui.votes = {}; ui.lastVote = null;
      if (ui.tab === 'table') ui.mode = null;
    }
    var m = mode(view, log);
    if (!render.drawn && window.performance && performance.mark) {
      render.drawn = true;
      performance.mark('live-table');  // bench/page_bench.py: the table is on the screen
    }
    var html = header(view) + status() + banner(view, log, m) + seats(view, log, m);
    html += ui.tab === 'table' ? livePanel(view, log, m) : outcomePanel(view, log, m);
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
  function banner(view, log, m) {
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

  function seats(view, log, m) {
    var noms = nominations(log);
    var target = view.phase.kind === 'night' ? nightShot(log) : null;
    var html = '<ol class="seats' + (m ? ' armed' : '') + '">';
    view.seats.forEach(function (s) {
      var role = S.ui.showRoles ? s.role : null;
      var picked = m === 'roles' ? S.ui.picks.indexOf(s.seat) : -1;
      if (picked >= 0) role = ROLE_ORDER[picked];
      var cls = 'seat' + (s.alive ? '' : ' out') + (s.nominated ? ' nominated' : '') +
        (S.ui.speaker === s.seat && view.phase.kind === 'day' && !view.over ? ' speaking' : '') +
        (S.ui.seat === s.seat ? ' chosen' : '') + (picked >= 0 ? ' picked' : '');
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

  function nominations(log) {
    var found = {};
    sincePhase(log).forEach(function (c) { if (c.type === 'nominate') found[c.seat] = c.by; });
    return found;
  }

  function tools(view, log, m) {
    var over = isOver(view);
    var html = '<div class="tools">';
    if (!over) html += btn('mode', '⚠ ' + esc(T('foul')), 'foul', m === 'foul' ? 'on' : '');
    if (!over && view.phase.kind === 'day' && !votingNow(view)) {
      html += btn('mode', '☝ ' + esc(T('nominate')), 'nominate', m === 'nominate' ? 'on' : '');
    }
    if (!over && !commands(log, 'shoot').length && rolesKnown(view)) {
      html += btn('mode', esc(T('change_roles')), 'roles', m === 'roles' ? 'on' : '');
    }
    html += btn('mode', '🟥 ' + esc(T('disqualify')), 'dq', m === 'dq' ? 'on' : '');
    html += btn('undo', '↶ ' + esc(T('undo')), null, '', !S.events.length && !S.queue.length);
    return html + '</div>';
  }

  function livePanel(view, log, m) {
    var html = tools(view, log, m);
    if (isOver(view)) {
      return html + '<div class="panel">' + btn('tab', esc(T('tab_outcome')) + ' ▶', 'outcome', 'main') + '</div>';
    }
    if (view.phase.kind === 'night') return html + nightPanel(view, log, m);
    if (votingNow(view)) return html + votePanel(view, log);
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

  function votePanel(view, log) {
    var ui = S.ui;
    var noms = view.seats.filter(function (s) { return s.nominated && s.alive; })
      .map(function (s) { return s.seat; });
    var order = sincePhase(log).filter(function (c) { return c.type === 'nominate'; })
      .map(function (c) { return c.seat; })
      .filter(function (n) { return noms.indexOf(n) >= 0; });
    noms.forEach(function (n) { if (order.indexOf(n) < 0) order.push(n); });
    var round = ui.voteRound || order;
    var voters = alive(view).length;
    var html = '<div class="panel vote">';
    if (ui.lastVote) html += voteDecision(ui.lastVote, round);
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
      html += btn('out', esc(T('vote_out', { seats: round[0] })), String(round[0]), 'main');
    }
    html += btn('out', esc(T('nobody_out')), '', 'wide');
    html += btn('speeches', '◀ ' + esc(T('back_to_speeches')), null, 'small');
    return html + '</div>';
  }

  function voteDecision(votes, round) {
    var most = -1;
    var leaders = [];
    round.forEach(function (n) {
      var v = votes[n] || 0;
      if (v > most) { most = v; leaders = [n]; } else if (v === most) leaders.push(n);
    });
    var html = '<div class="tally">' + round.map(function (n) {
      return '<b>' + n + '</b>: ' + (votes[n] || 0);
    }).join(' · ') + '</div>';
    if (leaders.length === 1) {
      return html + btn('out', esc(T('vote_out', { seats: leaders[0] })), String(leaders[0]), 'main wide');
    }
    if (S.ui.voteRound === null) html += btn('revote', esc(T('revote', { seats: leaders.join(', ') })), leaders.join(','), 'main wide');
    html += btn('out', esc(T('lift_all', { seats: leaders.join(', ') })), leaders.join(','), 'wide');
    return html;
  }

  function nightPanel(view, log, m) {
    var html = '<div class="panel night">';
    var steps = ['shoot', 'don_check', 'sheriff_check'];
    html += '<div class="steps">';
    steps.forEach(function (s) {
      var did = done(log, s);
      html += btn('mode', (did ? '✓ ' : '') + esc(T('step_' + s)), s, (m === s ? 'on' : '') + (did ? ' did' : ''), did);
    });
    html += '</div>';
    if (!done(log, 'shoot')) html += btn('miss', esc(T('miss')), null, 'wide');
    html += btn('end_night', esc(T('end_night', { n: view.phase.number + 1 })) + ' ▶', null,
      'main wide', !done(log, 'shoot'));
    return html + '</div>';
  }

  function outcomePanel(view, log, m) {
    var html = '<div class="panel outcome">';
    html += bestMove(view, log);
    html += '<h3>' + esc(T('result')) + '</h3><div class="row">';
    ['red', 'black', 'draw'].forEach(function (r) {
      html += btn('result', esc(T('result_' + r)), r, 'res ' + r + (view.result === r ? ' on' : ''));
    });
    html += '</div>';
    html += '<div class="row">' +
      btn('mode', esc(T('disqualify')), 'dq', m === 'dq' ? 'on' : '') +
      btn('mode', esc(T('penalties')), 'penalty', m === 'penalty' ? 'on' : '') +
      btn('mode', esc(T('extras')), 'extra', m === 'extra' ? 'on' : '') + '</div>';
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

  function bestMove(view, log) {
    var bm = view.best_move || {};
    var killed = bm.first_killed || firstKilled(log);
    if (!killed) return '';
    var named = bm.seats || commands(log, 'best_move').map(function (c) { return c.seat; });
    var html = '<h3>' + esc(T('best_move_of', { seat: killed, nick: nick(killed) })) + '</h3>';
    if (bm.allowed === false) return html + '<p class="hintline">' + esc(T('best_move_none')) + '</p>';
    html += '<ol class="named" id="best-move">';
    named.forEach(function (n) {
      html += '<li><b>' + n + '</b> ' + esc(nick(n)) + ' — <span class="ok">' + esc(T('accepted')) + '</span></li>';
    });
    html += '</ol>';
    var closed = bm.final || named.length >= 3 || commands(log, 'best_move_end').length;
    if (!closed) {
      html += '<div class="chips ten">';
      for (var n = 1; n <= 10; n++) {
        html += btn('best', String(n), n, 'chip', named.indexOf(n) >= 0);
      }
      html += '</div><div class="row">' + btn('best_end', esc(T('best_move_end')), null, '') + '</div>';
    }
    var hinted = bm.hint || commands(log, 'best_move_hint').length;
    html += '<div class="row">' + btn('best_hint', esc(T('best_move_hint')), null, hinted ? 'on' : '', !!hinted) + '</div>';
    return html;
  }

  function firstKilled(log) {
    var nights = 0;
    for (var i = 0; i < log.length; i++) {
      if (log[i].type === 'shoot' && nights === 0) return log[i].seat;
      if (log[i].type === 'end_night') nights++;
      if (log[i].type === 'night1') return log[i].seat;
    }
    return null;
  }

  function seatTool(view, m) {
    var seat = S.ui.seat;
    if (!seat || (m !== 'penalty' && m !== 'extra')) return '';
    var s = seatOf(view, seat);
    var html = '<div class="seattool"><b>' + seat + '</b> ' + esc(nick(seat)) + '<div class="chips">';
    if (m === 'penalty') {
      PENALTY_RULES.forEach(function (rule) {
        var has = penaltiesOf(view, seat).indexOf(rule) >= 0;
        html += btn(has ? 'unpenalty' : 'penalty', (has ? '✓ ' : '') + rule, rule, 'chip' + (has ? ' on' : ''));
      });
    } else {
      var won = view.result && view.result !== 'draw' && s.role &&
        (BLACK[s.role] ? 'black' : 'red') === view.result;
      var most = won ? 70 : 40;
      for (var h = 0; h <= most; h += 5) {
        html += btn('extra', h ? (h / 100).toFixed(2) : '0', h, 'chip' + (extraOf(view, seat) === h ? ' on' : ''));
      }
    }
    return html + '</div></div>';
  }

  function penaltiesOf(view, seat) {
    var p = view.penalties || {};
    if (Array.isArray(p)) {
      return p.filter(function (x) { return x.seat === seat; }).map(function (x) { return x.rule; });
    }
    return p[seat] || p[String(seat)] || [];
  }

  function extraOf(view, seat) {
    var e = view.extras || {};
    if (Array.isArray(e)) {
      var hit = e.filter(function (x) { return x.seat === seat; })[0];
      return hit ? hit.hundredths : 0;
    }
    return e[seat] || e[String(seat)] || 0;
  }

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
    var sv = shown();
    var view = sv.view;
    var m = mode(view, sv.log);
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
    var command = {
      foul: { type: 'foul', seat: n },
      nominate: { type: 'nominate', seat: n, by: ui.speaker },
      shoot: { type: 'shoot', seat: n },
      don_check: { type: 'don_check', seat: n },
      sheriff_check: { type: 'sheriff_check', seat: n },
      dq: { type: seatOf(view, n).out === 'disqualified' ? 'undisqualify' : 'disqualify', seat: n }
    }[m];
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
      var view = shown().view;
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
      var sv = shown();
      var view = sv.view;
      var round = S.ui.voteRound || view.seats.filter(function (s) { return s.nominated && s.alive; })
        .map(function (s) { return s.seat; });
      var order = sincePhase(sv.log).filter(function (c) { return c.type === 'nominate'; })
        .map(function (c) { return c.seat; }).filter(function (n) { return round.indexOf(n) >= 0; });
      round.forEach(function (n) { if (order.indexOf(n) < 0) order.push(n); });
      var votes = {};
      var given = 0;
      var voters = alive(view).length;
      order.forEach(function (n, i) {
        var v = i === order.length - 1 ? Math.max(0, voters - given) : (S.ui.votes[n] || 0);
        given += v;
        votes[String(n)] = v;
      });
      S.ui.lastVote = votes;
      S.ui.voteRound = S.ui.voteRound || null;
      S.ui.votes = {};
      send({ type: 'vote', votes: votes });
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
