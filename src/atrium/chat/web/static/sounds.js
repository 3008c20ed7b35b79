// The notification sounds Zulip offers by name (chime, ding, swoosh, zulip), synthesized with
// the Web Audio API: short tones, so the client needs no audio files.

let context = null;

// Each sound: notes as [frequency in Hz, start in s, length in s, waveform].
const SOUNDS = {
  chime: [
    [880, 0, 0.35, "sine"],
    [1318.5, 0.12, 0.5, "sine"],
  ],
  ding: [[1568, 0, 0.6, "triangle"]],
  swoosh: [[300, 0, 0.3, "sawtooth", 1200]],
  zulip: [
    [659.3, 0, 0.18, "sine"],
    [987.8, 0.1, 0.18, "sine"],
    [1318.5, 0.2, 0.35, "sine"],
  ],
};

export const soundNames = () => Object.keys(SOUNDS);

export function playSound(name) {
  const notes = SOUNDS[name];
  if (!notes || typeof AudioContext === "undefined") return false;
  context = context ?? new AudioContext();
  const now = context.currentTime;
  for (const [frequency, start, length, wave, glideTo] of notes) {
    const oscillator = context.createOscillator();
    const gain = context.createGain();
    oscillator.type = wave;
    oscillator.frequency.setValueAtTime(frequency, now + start);
    if (glideTo) oscillator.frequency.exponentialRampToValueAtTime(glideTo, now + start + length);
    gain.gain.setValueAtTime(0.0001, now + start);
    gain.gain.exponentialRampToValueAtTime(0.2, now + start + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    oscillator.connect(gain).connect(context.destination);
    oscillator.start(now + start);
    oscillator.stop(now + start + length + 0.05);
  }
  return true;
}
