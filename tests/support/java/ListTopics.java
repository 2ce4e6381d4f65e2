// Kafka's own Java Admin client reading a client.properties file, as the Kafka CLI tools do with
// --command-config: prints the topic names it can see, or fails (non-zero exit) with Kafka's own error.
import java.io.FileInputStream;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;

public class ListTopics {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        try (FileInputStream in = new FileInputStream(args[0])) {
            props.load(in);
        }
        props.putIfAbsent("default.api.timeout.ms", "30000");
        try (Admin admin = Admin.create(props)) {
            for (String name : admin.listTopics().names().get(60, TimeUnit.SECONDS)) {
                System.out.println(name);
            }
        }
    }
}
