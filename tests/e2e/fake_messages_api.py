# fake_messages_api.py — a loopback stand-in for the model API that agent
# CLIs speak (streamed Messages). The first turn asks for one tool call on
# argv[2] (Write, or the tool named by argv[3]: Read, or Bash, which runs
# argv[2] as a command); once a tool result
# comes back, it logs the result's text and ends the turn. It listens on
# 127.0.0.1 only, writes its port to argv[1], logs requests to argv[1].log,
# and stops by itself after two minutes.
#   usage: fake_messages_api.py PORT_FILE TARGET_PATH [TOOL]
import json, sys, http.server, time
port_file, target = sys.argv[1], sys.argv[2]
tool = sys.argv[3] if len(sys.argv) > 3 else 'Write'
log = open(port_file + '.log', 'a')

def sse(h, event, data):
    h.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())

class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        log.write(f"GET {self.path}\n"); log.flush()
        self.send_response(404); self.end_headers()
    def do_POST(self):
        n = int(self.headers.get('content-length') or 0)
        body = json.loads(self.rfile.read(n) or b'{}')
        log.write(f"POST {self.path} model={body.get('model')} stream={body.get('stream')} msgs={len(body.get('messages', []))}\n")
        log.write(f"KEY {self.headers.get('x-api-key')}\n"); log.flush()
        if not self.path.startswith('/v1/messages') or 'count_tokens' in self.path:
            self.send_response(200); self.send_header('content-type', 'application/json'); self.end_headers()
            self.wfile.write(b'{"input_tokens": 10}'); return
        msgs = body.get('messages', [])
        last = msgs[-1] if msgs else {}
        content = last.get('content')
        results = [c for c in content if isinstance(c, dict) and c.get('type') == 'tool_result'] if isinstance(content, list) else []
        for r in results:
            log.write(f"RESULT {json.dumps(r.get('content'))}\n"); log.flush()
        tools = [t.get('name') for t in body.get('tools', [])]
        want_tool = not results and tool in tools
        self.send_response(200)
        self.send_header('content-type', 'text/event-stream')
        self.end_headers()
        mid = 'msg_jail_1'
        sse(self, 'message_start', {'type': 'message_start', 'message': {'id': mid, 'type': 'message', 'role': 'assistant', 'model': body.get('model', 'x'), 'content': [], 'stop_reason': None, 'stop_sequence': None, 'usage': {'input_tokens': 10, 'output_tokens': 1}}})
        if want_tool:
            args = {'file_path': target, 'content': 'written by the agent\n'} if tool == 'Write' else \
                {'command': target, 'description': 'run it'} if tool == 'Bash' else {'file_path': target}
            sse(self, 'content_block_start', {'type': 'content_block_start', 'index': 0, 'content_block': {'type': 'tool_use', 'id': 'toolu_jail_1', 'name': tool, 'input': {}}})
            sse(self, 'content_block_delta', {'type': 'content_block_delta', 'index': 0, 'delta': {'type': 'input_json_delta', 'partial_json': json.dumps(args)}})
            sse(self, 'content_block_stop', {'type': 'content_block_stop', 'index': 0})
            sse(self, 'message_delta', {'type': 'message_delta', 'delta': {'stop_reason': 'tool_use', 'stop_sequence': None}, 'usage': {'output_tokens': 20}})
        else:
            sse(self, 'content_block_start', {'type': 'content_block_start', 'index': 0, 'content_block': {'type': 'text', 'text': ''}})
            sse(self, 'content_block_delta', {'type': 'content_block_delta', 'index': 0, 'delta': {'type': 'text_delta', 'text': 'done'}})
            sse(self, 'content_block_stop', {'type': 'content_block_stop', 'index': 0})
            sse(self, 'message_delta', {'type': 'message_delta', 'delta': {'stop_reason': 'end_turn', 'stop_sequence': None}, 'usage': {'output_tokens': 2}})
        sse(self, 'message_stop', {'type': 'message_stop'})
        self.wfile.flush()

srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
open(port_file, 'w').write(str(srv.server_address[1]))
srv.timeout = 1
deadline = time.time() + 120
while time.time() < deadline:
    srv.handle_request()
