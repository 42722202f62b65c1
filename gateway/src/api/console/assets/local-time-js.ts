/**
 * The console's local-time script (served as /console/assets/local-time.js): pages render times in UTC inside
 * <time datetime="…"> (correct without a script); this shows them in the viewer's own time zone, names that zone,
 * and tells a filter form the zone's offset (a hidden `tzo` field, minutes as Date#getTimezoneOffset gives them),
 * so the times typed into it are read as the viewer's. No inline script anywhere (the console's CSP).
 */
export const LOCAL_TIME_JS = `
(function () {
  'use strict';
  var fmt = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short' });
  var times = document.querySelectorAll('time[datetime]');
  for (var i = 0; i < times.length; i++) {
    var t = times[i];
    var iso = t.getAttribute('datetime');
    var d = new Date(iso);
    if (isNaN(d.getTime())) continue;
    t.textContent = fmt.format(d);
    t.setAttribute('title', iso + ' (UTC)');
  }
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'your time zone';
  var names = document.querySelectorAll('[data-time-zone]');
  for (var j = 0; j < names.length; j++) names[j].textContent = zone;
  var forms = document.querySelectorAll('form[data-local-times]');
  for (var k = 0; k < forms.length; k++) {
    (function (form) {
      form.addEventListener('submit', function () {
        var from = form.querySelector('input[name=from]');
        var at = from && from.value ? new Date(from.value) : new Date();
        var field = form.querySelector('input[name=tzo]');
        if (field) field.value = String(isNaN(at.getTime()) ? new Date().getTimezoneOffset() : at.getTimezoneOffset());
      });
    })(forms[k]);
  }
})();
`;
